import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { AnimalsEgress as AnimalsEgressRow } from '../../src/movements/animals-egress.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { ANIMALS_EGRESS_NEEDS, AnimalsEgress, AnimalsEgressCreateInput, AnimalsEgressPage, AnimalsEgressUpdateInput, AnimalsMovementTagsInput } from './animals-egress.type.js';
import { ANIMALS_EGRESS_SEARCH } from '../../src/movements/animals-egress.reader.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => AnimalsEgress)
export class AnimalsEgressResolver {
  @Query(() => AnimalsEgress)
  async animalsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<AnimalsEgressRow> {
    return ctx.loaders.take(await ctx.core.animalsEgresses.read(ctx.db, requireActor(ctx), id, includeOf(info, ANIMALS_EGRESS_NEEDS)));
  }

  @Query(() => AnimalsEgressPage, { description: 'Egresses from or to the units the caller sees; filter by record fields, animal_id; str_query matches label, description and plate' })
  async animalsEgresses(
    @Args(searchArgsOf('AnimalsEgress', ANIMALS_EGRESS_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<AnimalsEgressRow>> {
    return ctx.loaders.takePage(await ctx.core.animalsEgresses.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, ANIMALS_EGRESS_NEEDS)));
  }

  @Mutation(() => AnimalsEgress, { description: 'OPEN at a unit the caller works at, with a first batch of reads' })
  createAnimalsEgress(@Arg('input', () => AnimalsEgressCreateInput) input: AnimalsEgressCreateInput, @Ctx() ctx: Context): Promise<AnimalsEgressRow> {
    return ctx.core.animalsEgresses.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => AnimalsEgress, { description: 'Destination, GTA, plate, label, description while OPEN' })
  updateAnimalsEgress(@Arg('id', () => UUID) id: string, @Arg('input', () => AnimalsEgressUpdateInput) input: AnimalsEgressUpdateInput, @Ctx() ctx: Context): Promise<AnimalsEgressRow> {
    return ctx.core.animalsEgresses.update(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => AnimalsEgress, { description: 'A batch of reads while OPEN; a retried read (same id, or the same animal) changes nothing' })
  addAnimalsEgressTags(@Arg('id', () => UUID) id: string, @Arg('input', () => AnimalsMovementTagsInput) input: AnimalsMovementTagsInput, @Ctx() ctx: Context): Promise<AnimalsEgressRow> {
    return ctx.core.animalsEgresses.addReads(ctx.em, requireActor(ctx), id, input.tags);
  }

  @Mutation(() => AnimalsEgress, { description: 'Drop a read while OPEN' })
  removeAnimalsEgressTag(@Arg('id', () => UUID) id: string, @Arg('read_id', () => UUID) readId: string, @Ctx() ctx: Context): Promise<AnimalsEgressRow> {
    return ctx.core.animalsEgresses.removeRead(ctx.em, requireActor(ctx), id, readId);
  }

  @Mutation(() => AnimalsEgress, { description: 'OPEN → FINISHED under the GTA: the animals IN_TRANSIT, the GTA IN_USE; refused (RULE_VIOLATED) as DOMAIN.md says' })
  finishAnimalsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<AnimalsEgressRow> {
    return ctx.core.animalsEgresses.finish(ctx.em, requireActor(ctx), id);
  }

  @Mutation(() => AnimalsEgress, { description: 'OPEN or FINISHED → CANCELLED: the animals back ACTIVE at the origin' })
  cancelAnimalsEgress(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<AnimalsEgressRow> {
    return ctx.core.animalsEgresses.cancel(ctx.em, requireActor(ctx), id);
  }
}
