import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { TagsReplacement as TagsReplacementRow } from '../../src/tags/tags-replacement.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TAGS_REPLACEMENT_NEEDS, TagsReplacement, TagsReplacementCreateInput, TagsReplacementPage } from './tags-replacement.type.js';
import { TAGS_REPLACEMENT_SEARCH } from '../../src/tags/tags-replacement.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => TagsReplacement)
export class TagsReplacementResolver {
  @Query(() => TagsReplacement)
  async tagsReplacement(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagsReplacementRow> {
    return ctx.loaders.take(await ctx.core.tagsReplacements.read(ctx.db, requireActor(ctx), id, includeOf(info, TAGS_REPLACEMENT_NEEDS)));
  }

  @Query(() => TagsReplacementPage, { description: 'Replacements at units the caller sees; filters: the record fields, establishment_id, animal_id, tag_id, str_tag_code (old or new), str_reason' })
  async tagsReplacements(
    @Args(searchArgsOf('TagsReplacement', TAGS_REPLACEMENT_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsReplacementRow>> {
    return ctx.loaders.takePage(await ctx.core.tagsReplacements.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAGS_REPLACEMENT_NEEDS)));
  }

  @Mutation(() => TagsReplacement, { description: 'Applied tags → REPLACED, new tags → APPLIED on the same animals, all or nothing' })
  createTagsReplacement(@Arg('input', () => TagsReplacementCreateInput) input: TagsReplacementCreateInput, @Ctx() ctx: Context): Promise<TagsReplacementRow> {
    return ctx.core.tagsReplacements.create(ctx.em, requireActor(ctx), input);
  }
}
