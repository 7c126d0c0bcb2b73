import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { TagsWriteoff as TagsWriteoffRow } from '../../src/tags/tags-writeoff.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TAGS_WRITEOFF_NEEDS, TagsWriteoff, TagsWriteoffCreateInput, TagsWriteoffPage } from './tags-writeoff.type.js';
import { TAGS_WRITEOFF_SEARCH } from '../../src/tags/tags-writeoff.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => TagsWriteoff)
export class TagsWriteoffResolver {
  @Query(() => TagsWriteoff)
  async tagsWriteoff(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagsWriteoffRow> {
    return ctx.loaders.take(await ctx.core.tagsWriteoffs.read(ctx.db, requireActor(ctx), id, includeOf(info, TAGS_WRITEOFF_NEEDS)));
  }

  @Query(() => TagsWriteoffPage, { description: 'Writeoffs at units the caller sees; filters: the record fields, establishment_id, tag_id, str_tag_code, animal_id' })
  async tagsWriteoffs(
    @Args(searchArgsOf('TagsWriteoff', TAGS_WRITEOFF_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsWriteoffRow>> {
    return ctx.loaders.takePage(await ctx.core.tagsWriteoffs.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAGS_WRITEOFF_NEEDS)));
  }

  @Mutation(() => TagsWriteoff, { description: 'Tags of one unit → WRITTEN_OFF, all or nothing; death, slaughter and export end the animals of applied tags' })
  createTagsWriteoff(@Arg('input', () => TagsWriteoffCreateInput) input: TagsWriteoffCreateInput, @Ctx() ctx: Context): Promise<TagsWriteoffRow> {
    return ctx.core.tagsWriteoffs.create(ctx.em, requireActor(ctx), input);
  }
}
