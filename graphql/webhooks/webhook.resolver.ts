import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { Paged } from '../../src/shared/pagination.js';
import type { CreatedWebhook } from '../../src/outbox/webhook.service.js';
import type { DeliveryRow, WebhookRow } from '../../src/outbox/webhook.reader.js';
import { Webhook, WebhookCreated, WebhookCreateInput, WebhookDeliveryPage, WebhookPage, WebhookReplay, WebhookReplayInput, WebhookUpdateInput } from './webhook.type.js';

@Resolver(() => Webhook)
export class WebhookResolver {
  @Query(() => WebhookPage, { description: "The caller's webhook endpoints" })
  webhooks(@Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<Paged<WebhookRow>> {
    return ctx.core.webhooks.page(ctx.db, requireActor(ctx), page);
  }

  @Query(() => Webhook)
  webhook(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<WebhookRow> {
    return ctx.core.webhooks.read(ctx.db, requireActor(ctx), id);
  }

  @Query(() => WebhookDeliveryPage, { description: "An endpoint's delivery log, newest event first" })
  webhookDeliveries(
    @Arg('id', () => UUID) id: string,
    @Arg('str_status', () => String, { nullable: true }) status: string | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<Paged<DeliveryRow>> {
    return ctx.core.webhooks.deliveries(ctx.db, requireActor(ctx), id, page, status);
  }

  @Mutation(() => WebhookCreated)
  createWebhook(@Arg('input', () => WebhookCreateInput) input: WebhookCreateInput, @Ctx() ctx: Context): Promise<CreatedWebhook> {
    return ctx.core.webhooks.create(ctx.em, ctx.db, requireActor(ctx), input);
  }

  @Mutation(() => Webhook)
  updateWebhook(@Arg('id', () => UUID) id: string, @Arg('input', () => WebhookUpdateInput) input: WebhookUpdateInput, @Ctx() ctx: Context): Promise<WebhookRow> {
    return ctx.core.webhooks.update(ctx.em, ctx.db, requireActor(ctx), id, input);
  }

  @Mutation(() => Boolean)
  async deleteWebhook(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.webhooks.delete(ctx.em, ctx.db, requireActor(ctx), id);
    return true;
  }

  @Mutation(() => WebhookReplay)
  async replayWebhook(@Arg('id', () => UUID) id: string, @Arg('input', () => WebhookReplayInput) input: WebhookReplayInput, @Ctx() ctx: Context): Promise<WebhookReplay> {
    return { int_deliveries: await ctx.core.webhooks.replay(ctx.em, ctx.db, requireActor(ctx), id, input.ts_from) };
  }
}
