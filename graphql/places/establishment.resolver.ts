import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import {
  ControlUnit,
  ControlUnitCreateInput,
  ControlUnitPage,
  ControlUnitUpdateInput,
  Establishment,
  EstablishmentCreateInput,
  EstablishmentHistoryPage,
  EstablishmentPage,
  EstablishmentUnrestrictedPage,
  EstablishmentUpdateInput,
} from './establishment.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => Establishment)
export class EstablishmentResolver {
  @Query(() => Establishment)
  async establishment(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Establishment> {
    return as(await ctx.core.establishments.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => EstablishmentPage)
  async establishments(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<EstablishmentPage> {
    return as(await ctx.core.establishments.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Query(() => EstablishmentUnrestrictedPage, { description: "Every organization's establishments, public fields only" })
  async establishmentsUnrestricted(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<EstablishmentUnrestrictedPage> {
    return as(await ctx.core.establishments.searchUnrestricted(ctx.em, requireActor(ctx), filter, page));
  }

  @Query(() => EstablishmentHistoryPage, { description: "The establishment's events, oldest first" })
  async establishmentHistory(@Arg('id', () => UUID) id: string, @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<EstablishmentHistoryPage> {
    return as(await ctx.core.establishments.history(ctx.em, requireActor(ctx), id, page));
  }

  @Mutation(() => Establishment)
  async createEstablishment(@Arg('input', () => EstablishmentCreateInput) input: EstablishmentCreateInput, @Ctx() ctx: Context): Promise<Establishment> {
    return as(await ctx.core.establishments.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => Establishment, { description: 'The public API create: str_ibge_code, str_name and str_type required' })
  async createPublicEstablishment(@Arg('input', () => EstablishmentCreateInput) input: EstablishmentCreateInput, @Ctx() ctx: Context): Promise<Establishment> {
    return as(await ctx.core.establishments.create(ctx.em, requireActor(ctx), input, { publicApi: true }));
  }

  @Mutation(() => Establishment)
  async updateEstablishment(@Arg('id', () => UUID) id: string, @Arg('input', () => EstablishmentUpdateInput) input: EstablishmentUpdateInput, @Ctx() ctx: Context): Promise<Establishment> {
    return as(await ctx.core.establishments.update(ctx.em, requireActor(ctx), id, input));
  }
}

@Resolver(() => ControlUnit)
export class ControlUnitResolver {
  @Query(() => ControlUnit)
  async controlUnit(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<ControlUnit> {
    return as(await ctx.core.controlUnits.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => ControlUnitPage)
  async controlUnits(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<ControlUnitPage> {
    return as(await ctx.core.controlUnits.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => ControlUnit)
  async createControlUnit(@Arg('input', () => ControlUnitCreateInput) input: ControlUnitCreateInput, @Ctx() ctx: Context): Promise<ControlUnit> {
    return as(await ctx.core.controlUnits.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => ControlUnit)
  async updateControlUnit(@Arg('id', () => UUID) id: string, @Arg('input', () => ControlUnitUpdateInput) input: ControlUnitUpdateInput, @Ctx() ctx: Context): Promise<ControlUnit> {
    return as(await ctx.core.controlUnits.update(ctx.em, requireActor(ctx), id, input));
  }
}
