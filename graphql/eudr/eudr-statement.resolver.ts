import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { EudrStatement as EudrStatementRow } from '../../src/eudr/eudr-statement.entity.js';
import type { EudrGeolocation as EudrGeolocationRow } from '../../src/eudr/eudr.service.js';
import type { EudrVerdict as EudrVerdictRow } from '../../src/eudr/eudr.verdict.js';
import { requireActor, type Context } from '../context.js';
import { UUID } from '../shared/scalars.js';
import type { EudrStatementReferenceRow } from '../../src/eudr/eudr-statement.reader.js';
import { EudrStatement, EudrStatementReference, EudrStatementUpdateInput } from './eudr-statement.type.js';
import { EudrGeolocation, EudrLotInput, EudrVerdict } from './eudr.type.js';

@Resolver(() => EudrStatement)
export class EudrStatementResolver {
  @Mutation(() => EudrStatement, { description: "Records a lot's EUDR statement (whoever may ask for the lot's geolocation): the animals it holds now are kept with it" })
  async createEudrStatement(@Arg('lot', () => EudrLotInput) lot: EudrLotInput, @Ctx() ctx: Context): Promise<EudrStatementRow> {
    return ctx.core.eudrStatements.create(ctx.em, ctx.db, requireActor(ctx), lot);
  }

  @Query(() => EudrStatement)
  async eudrStatement(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<EudrStatementRow> {
    return ctx.loaders.take(await ctx.core.eudrStatements.read(ctx.db, requireActor(ctx), id));
  }

  @Query(() => EudrGeolocation, { description: "A recorded statement's GeoJSON and verdict, read now for the animals it holds" })
  async eudrStatementGeolocation(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<EudrGeolocationRow> {
    return ctx.core.eudrStatements.geolocation(ctx.db, requireActor(ctx), id);
  }

  @Query(() => EudrVerdict, { description: "A recorded statement's verdict" })
  async eudrStatementVerdict(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<EudrVerdictRow> {
    return (await ctx.core.eudrStatements.geolocation(ctx.db, requireActor(ctx), id)).verdict;
  }

  @Mutation(() => EudrStatement, { description: 'Records what TRACES gave on submission and the upstream statements it references' })
  async updateEudrStatement(@Arg('id', () => UUID) id: string, @Arg('input', () => EudrStatementUpdateInput) input: EudrStatementUpdateInput, @Ctx() ctx: Context): Promise<EudrStatementRow> {
    return ctx.core.eudrStatements.update(ctx.em, requireActor(ctx), id, input);
  }

  @Query(() => [EudrStatementReference], { description: "The submitted EUDR statements the animal is part of (whoever may read the animal)" })
  async animalEudrStatements(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<EudrStatementReferenceRow[]> {
    const { row } = await ctx.core.animals.read(ctx.db, requireActor(ctx), id, {});
    return ctx.core.eudrStatements.referencesOf(ctx.db, 'animal', row.id);
  }

  @Query(() => [EudrStatementReference], { description: "The submitted EUDR statements of the lot the GTA carried (whoever may read the GTA)" })
  async gtaEudrStatements(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<EudrStatementReferenceRow[]> {
    const { row } = await ctx.core.gtas.read(ctx.db, requireActor(ctx), id, {});
    return ctx.core.eudrStatements.referencesOf(ctx.db, 'gta', row.id);
  }
}
