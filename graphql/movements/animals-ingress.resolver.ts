import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { AnimalsIngress as AnimalsIngressRow } from '../../src/movements/animals-ingress.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { AnimalsMovementTagsInput } from './animals-egress.type.js';
import { ANIMALS_INGRESS_NEEDS, AnimalsIngress, AnimalsIngressCreateInput, AnimalsIngressPage } from './animals-ingress.type.js';
import { ANIMALS_INGRESS_SEARCH } from '../../src/movements/animals-ingress.reader.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => AnimalsIngress)
export class AnimalsIngressResolver {
  @Query(() => AnimalsIngress)
  async animalsIngress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<AnimalsIngressRow> {
    return ctx.loaders.take(await ctx.core.animalsIngresses.read(ctx.db, requireActor(ctx), id, includeOf(info, ANIMALS_INGRESS_NEEDS)));
  }

  @Query(() => AnimalsIngressPage, { description: 'Ingresses at the units the caller sees; filter by record fields, gta_id, animal_id' })
  async animalsIngresses(
    @Args(searchArgsOf('AnimalsIngress', ANIMALS_INGRESS_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<AnimalsIngressRow>> {
    return ctx.loaders.takePage(await ctx.core.animalsIngresses.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, ANIMALS_INGRESS_NEEDS)));
  }

  @Mutation(() => AnimalsIngress, { description: 'OPEN at a unit under one or more GTAs, with a first batch of reads' })
  createAnimalsIngress(@Arg('input', () => AnimalsIngressCreateInput) input: AnimalsIngressCreateInput, @Ctx() ctx: Context): Promise<AnimalsIngressRow> {
    return ctx.core.animalsIngresses.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => AnimalsIngress, { description: 'A batch of reads (and, reading off, the count so far) while OPEN' })
  addAnimalsIngressTags(@Arg('id', () => UUID) id: string, @Arg('input', () => AnimalsMovementTagsInput) input: AnimalsMovementTagsInput, @Ctx() ctx: Context): Promise<AnimalsIngressRow> {
    return ctx.core.animalsIngresses.addReads(ctx.em, requireActor(ctx), id, input.tags, input.int_animal_count);
  }

  @Mutation(() => AnimalsIngress, { description: 'Drop a read while OPEN' })
  removeAnimalsIngressTag(@Arg('id', () => UUID) id: string, @Arg('read_id', () => UUID) readId: string, @Ctx() ctx: Context): Promise<AnimalsIngressRow> {
    return ctx.core.animalsIngresses.removeRead(ctx.em, requireActor(ctx), id, readId);
  }

  @Mutation(() => AnimalsIngress, { description: 'Reconcile the reads against what left under the GTAs: RECEIVED or RECEIVED_WITH_DIVERGENCE, occurrences for every divergence' })
  finishAnimalsIngress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<AnimalsIngressRow> {
    return ctx.core.animalsIngresses.finish(ctx.em, requireActor(ctx), id);
  }

  @Mutation(() => AnimalsIngress, { description: 'OPEN → CANCELLED' })
  cancelAnimalsIngress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<AnimalsIngressRow> {
    return ctx.core.animalsIngresses.cancel(ctx.em, requireActor(ctx), id);
  }
}
