import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { TagsIngress, TagsIngressCreateInput, TagsIngressEvaluateInput, TagsIngressPage } from './tags-ingress.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => TagsIngress)
export class TagsIngressResolver {
  @Query(() => TagsIngress)
  async tagsIngress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsIngress> {
    return as(await ctx.core.tagsIngresses.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagsIngressPage)
  async tagsIngresses(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagsIngressPage> {
    return as(await ctx.core.tagsIngresses.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => TagsIngress, { description: 'Boxes arriving at a unit: from a supplier (codes not issued yet) or a SENT tags egress addressed to it' })
  async createTagsIngress(@Arg('input', () => TagsIngressCreateInput) input: TagsIngressCreateInput, @Ctx() ctx: Context): Promise<TagsIngress> {
    return as(await ctx.core.tagsIngresses.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => TagsIngress, { description: 'PENDING → EVALUATED (all ACCEPTED) | PARTIALLY_ACCEPTED: every box at once' })
  async evaluateTagsIngress(
    @Arg('id', () => UUID) id: string,
    @Arg('input', () => TagsIngressEvaluateInput) input: TagsIngressEvaluateInput,
    @Ctx() ctx: Context,
  ): Promise<TagsIngress> {
    return as(await ctx.core.tagsIngresses.evaluate(ctx.em, requireActor(ctx), id, input));
  }
}
