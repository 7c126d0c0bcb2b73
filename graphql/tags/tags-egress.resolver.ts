import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { TagsEgress as TagsEgressRow } from '../../src/tags/tags-egress.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TAGS_EGRESS_NEEDS, TagsEgress, TagsEgressCreateInput, TagsEgressPage } from './tags-egress.type.js';
import { TAGS_EGRESS_SEARCH } from '../../src/tags/tags-egress.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => TagsEgress)
export class TagsEgressResolver {
  @Query(() => TagsEgress)
  async tagsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagsEgressRow> {
    return ctx.loaders.take(await ctx.core.tagsEgresses.read(ctx.db, requireActor(ctx), id, includeOf(info, TAGS_EGRESS_NEEDS)));
  }

  @Query(() => TagsEgressPage, { description: 'Egresses from or to the units the caller sees; str_query matches the codes of their units' })
  async tagsEgresses(
    @Args(searchArgsOf('TagsEgress', TAGS_EGRESS_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsEgressRow>> {
    return ctx.loaders.takePage(await ctx.core.tagsEgresses.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAGS_EGRESS_NEEDS)));
  }

  @Mutation(() => TagsEgress, { description: 'Send boxes (IN_STOCK or OPENED) from a unit to another: their AVAILABLE tags go IN_TRANSIT' })
  createTagsEgress(@Arg('input', () => TagsEgressCreateInput) input: TagsEgressCreateInput, @Ctx() ctx: Context): Promise<TagsEgressRow> {
    return ctx.core.tagsEgresses.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => TagsEgress, { description: 'SENT → CANCELLED by the origin, before the destination takes it in: boxes and tags back as they were' })
  cancelTagsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsEgressRow> {
    return ctx.core.tagsEgresses.cancel(ctx.em, requireActor(ctx), id);
  }
}
