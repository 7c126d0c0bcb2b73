import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { TagsEgress, TagsEgressCreateInput, TagsEgressPage } from './tags-egress.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => TagsEgress)
export class TagsEgressResolver {
  @Query(() => TagsEgress)
  async tagsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsEgress> {
    return as(await ctx.core.tagsEgresses.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagsEgressPage, { description: 'Egresses from or to the units the caller sees; str_query matches the codes of their units' })
  async tagsEgresses(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagsEgressPage> {
    return as(await ctx.core.tagsEgresses.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => TagsEgress, { description: 'Send boxes (IN_STOCK or OPENED) from a unit to another: their AVAILABLE tags go IN_TRANSIT' })
  async createTagsEgress(@Arg('input', () => TagsEgressCreateInput) input: TagsEgressCreateInput, @Ctx() ctx: Context): Promise<TagsEgress> {
    return as(await ctx.core.tagsEgresses.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => TagsEgress, { description: 'SENT → CANCELLED by the origin, before the destination takes it in: boxes and tags back as they were' })
  async cancelTagsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsEgress> {
    return as(await ctx.core.tagsEgresses.cancel(ctx.em, requireActor(ctx), id));
  }
}
