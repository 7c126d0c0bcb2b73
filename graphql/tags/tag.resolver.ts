import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { Tag, TagPage, TagsBox, TagsBoxPage } from './tag.type.js';

const as = <T>(v: unknown) => v as T;

/** Tags and boxes at the control units the caller sees; written only by tag operations. */
@Resolver(() => Tag)
export class TagResolver {
  @Query(() => Tag)
  async tag(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Tag> {
    return as(await ctx.core.tags.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagPage, { description: 'Filters: any scalar field, str_begin/str_finish (a range of codes), ts_*_from/_to, str_query over str_code' })
  async tags(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagPage> {
    return as(await ctx.core.tags.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Query(() => TagsBox)
  async tagsBox(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsBox> {
    return as(await ctx.core.tags.getBox(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagsBoxPage, { description: 'Filters: any scalar field, str_tag_code (the box holding a code), ts_*_from/_to, str_query over code and range' })
  async tagsBoxes(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagsBoxPage> {
    return as(await ctx.core.tags.searchBoxes(ctx.em, requireActor(ctx), filter, page));
  }
}
