import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import type { Establishment as EstablishmentRow } from '../../src/places/establishment.entity.js';
import type { HistoryEntry } from '../../src/shared/history.js';
import type { Paged } from '../../src/shared/pagination.js';
import {
  CONTROL_UNIT_NEEDS,
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
  ESTABLISHMENT_NEEDS,
} from './establishment.type.js';
import { CONTROL_UNIT_SEARCH } from '../../src/places/control-unit.service.js';
import { ESTABLISHMENT_SEARCH, ESTABLISHMENT_UNRESTRICTED_SEARCH } from '../../src/places/establishment.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => Establishment)
export class EstablishmentResolver {
  @Query(() => Establishment)
  async establishment(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<EstablishmentRow> {
    return ctx.loaders.take(await ctx.core.establishments.read(ctx.db, requireActor(ctx), id, includeOf(info, ESTABLISHMENT_NEEDS)));
  }

  @Query(() => EstablishmentPage)
  async establishments(
    @Args(searchArgsOf('Establishment', ESTABLISHMENT_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<EstablishmentRow>> {
    return ctx.loaders.takePage(await ctx.core.establishments.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, ESTABLISHMENT_NEEDS)));
  }

  @Query(() => EstablishmentUnrestrictedPage, { description: "Every organization's establishments, public fields only" })
  async establishmentsUnrestricted(
    @Args(searchArgsOf('EstablishmentUnrestricted', ESTABLISHMENT_UNRESTRICTED_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<EstablishmentRow>> {
    return ctx.loaders.takePage(await ctx.core.establishments.pageUnrestricted(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, ESTABLISHMENT_NEEDS)));
  }

  @Query(() => EstablishmentHistoryPage, { description: "The establishment's events, oldest first" })
  async establishmentHistory(@Arg('id', () => UUID) id: string, @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<Paged<HistoryEntry>> {
    return ctx.core.establishments.history(ctx.db, requireActor(ctx), id, page);
  }

  @Mutation(() => Establishment)
  async createEstablishment(@Arg('input', () => EstablishmentCreateInput) input: EstablishmentCreateInput, @Ctx() ctx: Context): Promise<EstablishmentRow> {
    return ctx.core.establishments.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Establishment, { description: 'The public API create: str_ibge_code, str_name and str_type required' })
  async createPublicEstablishment(@Arg('input', () => EstablishmentCreateInput) input: EstablishmentCreateInput, @Ctx() ctx: Context): Promise<EstablishmentRow> {
    return ctx.core.establishments.create(ctx.em, requireActor(ctx), input, { publicApi: true });
  }

  @Mutation(() => Establishment)
  async updateEstablishment(@Arg('id', () => UUID) id: string, @Arg('input', () => EstablishmentUpdateInput) input: EstablishmentUpdateInput, @Ctx() ctx: Context): Promise<EstablishmentRow> {
    return ctx.core.establishments.update(ctx.em, requireActor(ctx), id, input);
  }
}

@Resolver(() => ControlUnit)
export class ControlUnitResolver {
  @Query(() => ControlUnit)
  async controlUnit(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<ControlUnitRow> {
    return ctx.loaders.take(await ctx.core.controlUnits.read(ctx.db, requireActor(ctx), id, includeOf(info, CONTROL_UNIT_NEEDS)));
  }

  @Query(() => ControlUnitPage)
  async controlUnits(
    @Args(searchArgsOf('ControlUnit', CONTROL_UNIT_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<ControlUnitRow>> {
    return ctx.loaders.takePage(await ctx.core.controlUnits.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, CONTROL_UNIT_NEEDS)));
  }

  @Mutation(() => ControlUnit)
  async createControlUnit(@Arg('input', () => ControlUnitCreateInput) input: ControlUnitCreateInput, @Ctx() ctx: Context): Promise<ControlUnitRow> {
    return ctx.core.controlUnits.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => ControlUnit)
  async updateControlUnit(@Arg('id', () => UUID) id: string, @Arg('input', () => ControlUnitUpdateInput) input: ControlUnitUpdateInput, @Ctx() ctx: Context): Promise<ControlUnitRow> {
    return ctx.core.controlUnits.update(ctx.em, requireActor(ctx), id, input);
  }
}
