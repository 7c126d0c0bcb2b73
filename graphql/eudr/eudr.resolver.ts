import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import type { EudrGeolocation as EudrGeolocationRow } from '../../src/eudr/eudr.service.js';
import type { EudrVerdict as EudrVerdictRow } from '../../src/eudr/eudr.verdict.js';
import { requireActor, type Context } from '../context.js';
import { EudrGeolocation, EudrLotInput, EudrVerdict } from './eudr.type.js';

@Resolver()
export class EudrResolver {
  @Query(() => EudrGeolocation, { description: "EUDR due diligence: the lot's holdings as GeoJSON for TRACES, and the verdict (the lot's holder, an authority of its UF, an administrator)" })
  async eudrGeolocation(@Arg('lot', () => EudrLotInput) lot: EudrLotInput, @Ctx() ctx: Context): Promise<EudrGeolocationRow> {
    return ctx.core.eudr.geolocation(ctx.db, requireActor(ctx), lot);
  }

  @Query(() => EudrVerdict, { description: "The verdict of eudrGeolocation alone: READY, or NOT_READY with each establishment's reasons" })
  async eudrVerdict(@Arg('lot', () => EudrLotInput) lot: EudrLotInput, @Ctx() ctx: Context): Promise<EudrVerdictRow> {
    return (await ctx.core.eudr.geolocation(ctx.db, requireActor(ctx), lot)).verdict;
  }
}
