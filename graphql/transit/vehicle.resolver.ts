import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { Paged } from '../../src/shared/pagination.js';
import type { Vehicle as VehicleRow } from '../../src/transit/vehicle.entity.js';
import { VEHICLE_NEEDS, Vehicle, VehicleCreateInput, VehiclePage, VehicleUpdateInput } from './vehicle.type.js';
import { VEHICLE_SEARCH } from '../../src/transit/vehicle.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => Vehicle)
export class VehicleResolver {
  @Query(() => Vehicle)
  async vehicle(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<VehicleRow> {
    return ctx.loaders.take(await ctx.core.vehicles.read(ctx.db, requireActor(ctx), id, includeOf(info, VEHICLE_NEEDS)));
  }

  @Query(() => VehiclePage)
  async vehicles(
    @Args(searchArgsOf('Vehicle', VEHICLE_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<VehicleRow>> {
    return ctx.loaders.takePage(await ctx.core.vehicles.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, VEHICLE_NEEDS)));
  }

  @Mutation(() => Vehicle)
  async createVehicle(@Arg('input', () => VehicleCreateInput) input: VehicleCreateInput, @Ctx() ctx: Context): Promise<VehicleRow> {
    return ctx.core.vehicles.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Vehicle)
  async updateVehicle(@Arg('id', () => UUID) id: string, @Arg('input', () => VehicleUpdateInput) input: VehicleUpdateInput, @Ctx() ctx: Context): Promise<VehicleRow> {
    return ctx.core.vehicles.update(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Boolean)
  async deleteVehicle(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.vehicles.delete(ctx.em, requireActor(ctx), id);
    return true;
  }
}
