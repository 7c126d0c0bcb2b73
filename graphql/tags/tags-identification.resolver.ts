import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { TagsIdentification as TagsIdentificationRow } from '../../src/tags/tags-identification.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TAGS_IDENTIFICATION_NEEDS, TagsIdentification, TagsIdentificationCreateInput, TagsIdentificationPage } from './tags-identification.type.js';
import { TAGS_IDENTIFICATION_SEARCH } from '../../src/tags/tags-identification.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => TagsIdentification)
export class TagsIdentificationResolver {
  @Query(() => TagsIdentification)
  async tagsIdentification(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagsIdentificationRow> {
    return ctx.loaders.take(await ctx.core.tagsIdentifications.read(ctx.db, requireActor(ctx), id, includeOf(info, TAGS_IDENTIFICATION_NEEDS)));
  }

  @Query(() => TagsIdentificationPage)
  async tagsIdentifications(
    @Args(searchArgsOf('TagsIdentification', TAGS_IDENTIFICATION_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsIdentificationRow>> {
    return ctx.loaders.takePage(await ctx.core.tagsIdentifications.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAGS_IDENTIFICATION_NEEDS)));
  }

  @Mutation(() => TagsIdentification, { description: 'Applies AVAILABLE or RESERVED tags of the unit to new animals (tags → APPLIED, animals ACTIVE there): all or none' })
  createTagsIdentification(@Arg('input', () => TagsIdentificationCreateInput) input: TagsIdentificationCreateInput, @Ctx() ctx: Context): Promise<TagsIdentificationRow> {
    return ctx.core.tagsIdentifications.create(ctx.em, requireActor(ctx), input);
  }
}
