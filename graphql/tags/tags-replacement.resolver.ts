import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { TagsReplacement, TagsReplacementCreateInput, TagsReplacementPage } from './tags-replacement.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => TagsReplacement)
export class TagsReplacementResolver {
  @Query(() => TagsReplacement)
  async tagsReplacement(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsReplacement> {
    return as(await ctx.core.tagsReplacements.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagsReplacementPage, { description: 'Replacements at units the caller sees; filters: the record fields, establishment_id, animal_id, tag_id, str_tag_code (old or new), str_reason' })
  async tagsReplacements(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagsReplacementPage> {
    return as(await ctx.core.tagsReplacements.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => TagsReplacement, { description: 'Applied tags → REPLACED, new tags → APPLIED on the same animals, all or nothing' })
  async createTagsReplacement(@Arg('input', () => TagsReplacementCreateInput) input: TagsReplacementCreateInput, @Ctx() ctx: Context): Promise<TagsReplacement> {
    return as(await ctx.core.tagsReplacements.create(ctx.em, requireActor(ctx), input));
  }
}
