import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { InviteRequest, InviteRequestCreateInput, InviteRequestPage } from './invite-request.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => InviteRequest)
export class InviteRequestResolver {
  @Query(() => InviteRequest)
  async inviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequest> {
    return as(await ctx.core.inviteRequests.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => InviteRequestPage, { description: "The caller's requests and those to its organization's units" })
  async inviteRequests(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<InviteRequestPage> {
    return as(await ctx.core.inviteRequests.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => InviteRequest)
  async createInviteRequest(@Arg('input', () => InviteRequestCreateInput) input: InviteRequestCreateInput, @Ctx() ctx: Context): Promise<InviteRequest> {
    return as(await ctx.core.inviteRequests.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => InviteRequest, { description: 'Creates an accepted invite for the requester' })
  async approveInviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequest> {
    return as(await ctx.core.inviteRequests.approve(ctx.em, requireActor(ctx), id));
  }

  @Mutation(() => InviteRequest)
  async denyInviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequest> {
    return as(await ctx.core.inviteRequests.deny(ctx.em, requireActor(ctx), id));
  }

  @Mutation(() => InviteRequest)
  async cancelInviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequest> {
    return as(await ctx.core.inviteRequests.cancel(ctx.em, requireActor(ctx), id));
  }
}
