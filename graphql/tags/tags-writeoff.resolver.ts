import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { TagsWriteoff, TagsWriteoffCreateInput, TagsWriteoffPage } from './tags-writeoff.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => TagsWriteoff)
export class TagsWriteoffResolver {
  @Query(() => TagsWriteoff)
  async tagsWriteoff(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsWriteoff> {
    return as(await ctx.core.tagsWriteoffs.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagsWriteoffPage, { description: 'Writeoffs at units the caller sees; filters: the record fields, establishment_id, tag_id, str_tag_code, animal_id' })
  async tagsWriteoffs(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagsWriteoffPage> {
    return as(await ctx.core.tagsWriteoffs.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => TagsWriteoff, { description: 'Tags of one unit → WRITTEN_OFF, all or nothing; death, slaughter and export end the animals of applied tags' })
  async createTagsWriteoff(@Arg('input', () => TagsWriteoffCreateInput) input: TagsWriteoffCreateInput, @Ctx() ctx: Context): Promise<TagsWriteoff> {
    return as(await ctx.core.tagsWriteoffs.create(ctx.em, requireActor(ctx), input));
  }
}
