import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { Travel as TravelRow } from '../../src/transit/travel.entity.js';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { TRAVEL_NEEDS, Travel, TravelCreateInput, TravelEmbarkInput, TravelFinishInput, TravelPage, TravelStartInput, TravelStopInput } from './travel.type.js';
import { TRAVEL_SEARCH } from '../../src/transit/travel.reader.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => Travel)
export class TravelResolver {
  @Query(() => Travel, { description: 'A trip found under way past TRAVEL_MAX_HOURS raises TRANSIT_TIME_EXCEEDED (once)' })
  async travel(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TravelRow> {
    return ctx.loaders.take(await ctx.core.travels.read(ctx.db, requireActor(ctx), id, includeOf(info, TRAVEL_NEEDS), () => ctx.em));
  }

  @Query(() => TravelPage, { description: 'Travels from or to the units the caller sees, and those it drives; filter by record fields, animals_egress_id; str_query matches the consignee' })
  async travels(
    @Args(searchArgsOf('Travel', TRAVEL_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TravelRow>> {
    return ctx.loaders.takePage(await ctx.core.travels.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TRAVEL_NEEDS), () => ctx.em));
  }

  @Mutation(() => Travel, { description: 'PLANNED, from a unit the caller works at' })
  createTravel(@Arg('input', () => TravelCreateInput) input: TravelCreateInput, @Ctx() ctx: Context): Promise<TravelRow> {
    return ctx.core.travels.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Travel, { description: 'PLANNED → IN_PROGRESS (time, position)' })
  startTravel(@Arg('id', () => UUID) id: string, @Arg('input', () => TravelStartInput, { nullable: true }) input: TravelStartInput | null, @Ctx() ctx: Context): Promise<TravelRow> {
    return ctx.core.travels.start(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Travel, { description: 'An animals egress of the origin loaded (time, place) while PLANNED or IN_PROGRESS; one travel at a time' })
  addTravelEmbark(@Arg('id', () => UUID) id: string, @Arg('input', () => TravelEmbarkInput, { nullable: true }) input: TravelEmbarkInput | null, @Ctx() ctx: Context): Promise<TravelRow> {
    return ctx.core.travels.embark(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Travel, { description: 'A stop (position, arrival, departure) while IN_PROGRESS' })
  addTravelStop(@Arg('id', () => UUID) id: string, @Arg('input', () => TravelStopInput, { nullable: true }) input: TravelStopInput | null, @Ctx() ctx: Context): Promise<TravelRow> {
    return ctx.core.travels.stop(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Travel, { description: 'IN_PROGRESS → FINISHED: ts_end_time, int_duration in minutes; over TRAVEL_MAX_HOURS raises TRANSIT_TIME_EXCEEDED' })
  finishTravel(@Arg('id', () => UUID) id: string, @Arg('input', () => TravelFinishInput, { nullable: true }) input: TravelFinishInput | null, @Ctx() ctx: Context): Promise<TravelRow> {
    return ctx.core.travels.finish(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Travel, { description: 'PLANNED or IN_PROGRESS → CANCELLED; its egresses may ride another travel' })
  cancelTravel(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TravelRow> {
    return ctx.core.travels.cancel(ctx.em, requireActor(ctx), id);
  }
}
