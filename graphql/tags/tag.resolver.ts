import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { Tag as TagRow } from '../../src/tags/tag.entity.js';
import type { TagsBox as TagsBoxRow } from '../../src/tags/tags-box.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TAG_NEEDS, Tag, TagPage, TagsBox, TagsBoxPage } from './tag.type.js';
import { TAGS_BOX_SEARCH, TAG_SEARCH } from '../../src/tags/tag.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

/** Tags and boxes at the control units the caller sees; written only by tag operations. */
@Resolver(() => Tag)
export class TagResolver {
  @Query(() => Tag)
  async tag(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagRow> {
    return ctx.loaders.take(await ctx.core.tags.read(ctx.db, requireActor(ctx), id, includeOf(info, TAG_NEEDS)));
  }

  @Query(() => TagPage, { description: 'Filters: any scalar field, str_begin/str_finish (a range of codes), ts_*_from/_to, str_query over str_code' })
  async tags(
    @Args(searchArgsOf('Tag', TAG_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagRow>> {
    return ctx.loaders.takePage(await ctx.core.tags.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAG_NEEDS)));
  }

  @Query(() => TagsBox)
  async tagsBox(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsBoxRow> {
    return ctx.loaders.take(await ctx.core.tags.readBox(ctx.db, requireActor(ctx), id));
  }

  @Query(() => TagsBoxPage, { description: 'Filters: any scalar field, str_tag_code (the box holding a code), ts_*_from/_to, str_query over code and range' })
  async tagsBoxes(
    @Args(searchArgsOf('TagsBox', TAGS_BOX_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsBoxRow>> {
    return ctx.loaders.takePage(await ctx.core.tags.pageBoxes(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, {})));
  }
}
