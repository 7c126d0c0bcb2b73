import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { EstablishmentUnrestrictedPage } from '../places/establishment.type.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { Gta, GtaCreateInput, GtaPage, IntegrationGtaInput } from './gta.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => Gta)
export class GtaResolver {
  @Query(() => Gta)
  async gta(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Gta> {
    return as(await ctx.core.gtas.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => GtaPage)
  async gtas(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<GtaPage> {
    return as(await ctx.core.gtas.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => Gta)
  async createGta(@Arg('input', () => GtaCreateInput) input: GtaCreateInput, @Ctx() ctx: Context): Promise<Gta> {
    return as(await ctx.core.gtas.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => Gta, { description: 'ISSUED → CANCELLED, by its issuer, an authority of its UF or an administrator' })
  async cancelGta(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Gta> {
    return as(await ctx.core.gtas.cancel(ctx.em, requireActor(ctx), id));
  }
}

/** The state integration: INTEGRATION and AUTHORITY users, scoped to the UF of their county. */
@Resolver()
export class IntegrationResolver {
  @Query(() => EstablishmentUnrestrictedPage, { description: "Establishments of the caller's federative unit (public fields)" })
  async propriedades(@Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<EstablishmentUnrestrictedPage> {
    return as(await ctx.core.integration.propriedades(ctx.em, requireActor(ctx), page));
  }

  @Mutation(() => Gta, { description: 'Registers the GTA the state issued; a replay (same UF, series and number) returns the same GTA' })
  async gtaNotificar(@Arg('input', () => IntegrationGtaInput) input: IntegrationGtaInput, @Ctx() ctx: Context): Promise<Gta> {
    return as(await ctx.core.integration.notificar(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => Gta, { description: 'The state cancels a GTA: ISSUED → CANCELLED; refused once animals were dispatched' })
  async gtaCancelar(@Arg('input', () => IntegrationGtaInput) input: IntegrationGtaInput, @Ctx() ctx: Context): Promise<Gta> {
    return as(await ctx.core.integration.cancelar(ctx.em, requireActor(ctx), input));
  }

  @Query(() => JSONObject, { description: 'An animals ingress by its uuid or the id_gta it was made under (none exist yet: always NOT_FOUND)' })
  async entradaAnimais(@Arg('id', () => String) id: string, @Ctx() ctx: Context): Promise<Record<string, unknown>> {
    return ctx.core.integration.entradaAnimais(ctx.em, requireActor(ctx), id);
  }

  @Query(() => JSONObject, { description: 'An animals egress by its uuid or the id_gta it was made under (none exist yet: always NOT_FOUND)' })
  async saidaAnimais(@Arg('id', () => String) id: string, @Ctx() ctx: Context): Promise<Record<string, unknown>> {
    return ctx.core.integration.saidaAnimais(ctx.em, requireActor(ctx), id);
  }
}
