import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { Vehicle, VehicleCreateInput, VehiclePage, VehicleUpdateInput } from './vehicle.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => Vehicle)
export class VehicleResolver {
  @Query(() => Vehicle)
  async vehicle(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Vehicle> {
    return as(await ctx.core.vehicles.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => VehiclePage)
  async vehicles(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<VehiclePage> {
    return as(await ctx.core.vehicles.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => Vehicle)
  async createVehicle(@Arg('input', () => VehicleCreateInput) input: VehicleCreateInput, @Ctx() ctx: Context): Promise<Vehicle> {
    return as(await ctx.core.vehicles.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => Vehicle)
  async updateVehicle(@Arg('id', () => UUID) id: string, @Arg('input', () => VehicleUpdateInput) input: VehicleUpdateInput, @Ctx() ctx: Context): Promise<Vehicle> {
    return as(await ctx.core.vehicles.update(ctx.em, requireActor(ctx), id, input));
  }

  @Mutation(() => Boolean)
  async deleteVehicle(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.vehicles.delete(ctx.em, requireActor(ctx), id);
    return true;
  }
}
