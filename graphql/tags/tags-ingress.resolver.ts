import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { TagsIngress as TagsIngressRow } from '../../src/tags/tags-ingress.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TAGS_INGRESS_NEEDS, TagsIngress, TagsIngressCreateInput, TagsIngressEvaluateInput, TagsIngressPage } from './tags-ingress.type.js';
import { TAGS_INGRESS_SEARCH } from '../../src/tags/tags-ingress.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => TagsIngress)
export class TagsIngressResolver {
  @Query(() => TagsIngress)
  async tagsIngress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagsIngressRow> {
    return ctx.loaders.take(await ctx.core.tagsIngresses.read(ctx.db, requireActor(ctx), id, includeOf(info, TAGS_INGRESS_NEEDS)));
  }

  @Query(() => TagsIngressPage)
  async tagsIngresses(
    @Args(searchArgsOf('TagsIngress', TAGS_INGRESS_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsIngressRow>> {
    return ctx.loaders.takePage(await ctx.core.tagsIngresses.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAGS_INGRESS_NEEDS)));
  }

  @Mutation(() => TagsIngress, { description: 'Boxes arriving at a unit: from a supplier (codes not issued yet) or a SENT tags egress addressed to it' })
  createTagsIngress(@Arg('input', () => TagsIngressCreateInput) input: TagsIngressCreateInput, @Ctx() ctx: Context): Promise<TagsIngressRow> {
    return ctx.core.tagsIngresses.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => TagsIngress, { description: 'PENDING → EVALUATED (all ACCEPTED) | PARTIALLY_ACCEPTED: every box at once' })
  evaluateTagsIngress(
    @Arg('id', () => UUID) id: string,
    @Arg('input', () => TagsIngressEvaluateInput) input: TagsIngressEvaluateInput,
    @Ctx() ctx: Context,
  ): Promise<TagsIngressRow> {
    return ctx.core.tagsIngresses.evaluate(ctx.em, requireActor(ctx), id, input);
  }
}
