import { ANIMALS_EGRESS_NEEDS, AnimalsEgress } from './animals-egress.type.js';
import { ANIMALS_INGRESS_NEEDS, AnimalsIngress } from './animals-ingress.type.js';
import type { AnimalsEgress as AnimalsEgressRow } from '../../src/movements/animals-egress.entity.js';
import type { AnimalsIngress as AnimalsIngressRow } from '../../src/movements/animals-ingress.entity.js';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { ESTABLISHMENT_NEEDS, EstablishmentUnrestrictedPage } from '../places/establishment.type.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { Gta as GtaRow } from '../../src/movements/gta.entity.js';
import type { Establishment as EstablishmentRow } from '../../src/places/establishment.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { GTA_NEEDS, Gta, GtaCreateInput, GtaPage, IntegrationGtaInput } from './gta.type.js';
import { GTA_SEARCH } from '../../src/movements/gta.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => Gta)
export class GtaResolver {
  @Query(() => Gta)
  async gta(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<GtaRow> {
    return ctx.loaders.take(await ctx.core.gtas.read(ctx.db, requireActor(ctx), id, includeOf(info, GTA_NEEDS)));
  }

  @Query(() => GtaPage)
  async gtas(
    @Args(searchArgsOf('Gta', GTA_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<GtaRow>> {
    return ctx.loaders.takePage(await ctx.core.gtas.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, GTA_NEEDS)));
  }

  @Mutation(() => Gta)
  async createGta(@Arg('input', () => GtaCreateInput) input: GtaCreateInput, @Ctx() ctx: Context): Promise<GtaRow> {
    return ctx.core.gtas.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Gta, { description: 'ISSUED → CANCELLED, by its issuer, an authority of its UF or an administrator' })
  async cancelGta(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<GtaRow> {
    return ctx.core.gtas.cancel(ctx.em, requireActor(ctx), id);
  }
}

/** The state integration: INTEGRATION and AUTHORITY users, scoped to the UF of their county. */
@Resolver()
export class IntegrationResolver {
  @Query(() => EstablishmentUnrestrictedPage, { description: "Establishments of the caller's federative unit (public fields)" })
  async propriedades(@Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<Paged<EstablishmentRow>> {
    return ctx.loaders.takePage(await ctx.core.integration.propriedades(ctx.db, requireActor(ctx), page, pageLookahead(info, ESTABLISHMENT_NEEDS)));
  }

  @Mutation(() => Gta, { description: 'Registers the GTA the state issued; a replay (same UF, series and number) returns the same GTA' })
  async gtaNotificar(@Arg('input', () => IntegrationGtaInput) input: IntegrationGtaInput, @Ctx() ctx: Context): Promise<GtaRow> {
    return ctx.core.integration.notificar(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Gta, { description: 'The state cancels a GTA: ISSUED → CANCELLED; refused once animals were dispatched' })
  async gtaCancelar(@Arg('input', () => IntegrationGtaInput) input: IntegrationGtaInput, @Ctx() ctx: Context): Promise<GtaRow> {
    return ctx.core.integration.cancelar(ctx.em, requireActor(ctx), input);
  }

  @Query(() => AnimalsIngress, { description: "An animals ingress of the caller's UF by its uuid or by the id_gta it was received under (the latest)" })
  async entradaAnimais(@Arg('id', () => String) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<AnimalsIngressRow> {
    return ctx.loaders.take(await ctx.core.integration.entradaAnimais(ctx.db, requireActor(ctx), id, includeOf(info, ANIMALS_INGRESS_NEEDS)));
  }

  @Query(() => AnimalsEgress, { description: "An animals egress of the caller's UF by its uuid or by the id_gta it left under (the latest)" })
  async saidaAnimais(@Arg('id', () => String) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<AnimalsEgressRow> {
    return ctx.loaders.take(await ctx.core.integration.saidaAnimais(ctx.db, requireActor(ctx), id, includeOf(info, ANIMALS_EGRESS_NEEDS)));
  }
}
