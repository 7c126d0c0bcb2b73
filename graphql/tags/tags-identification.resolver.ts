import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { TagsIdentification, TagsIdentificationCreateInput, TagsIdentificationPage } from './tags-identification.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => TagsIdentification)
export class TagsIdentificationResolver {
  @Query(() => TagsIdentification)
  async tagsIdentification(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsIdentification> {
    return as(await ctx.core.tagsIdentifications.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => TagsIdentificationPage)
  async tagsIdentifications(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<TagsIdentificationPage> {
    return as(await ctx.core.tagsIdentifications.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => TagsIdentification, { description: 'Applies AVAILABLE or RESERVED tags of the unit to new animals (tags → APPLIED, animals ACTIVE there): all or none' })
  async createTagsIdentification(@Arg('input', () => TagsIdentificationCreateInput) input: TagsIdentificationCreateInput, @Ctx() ctx: Context): Promise<TagsIdentification> {
    return as(await ctx.core.tagsIdentifications.create(ctx.em, requireActor(ctx), input));
  }
}
