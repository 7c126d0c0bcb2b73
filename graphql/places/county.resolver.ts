import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { County, CountyPage } from './county.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => County)
export class CountyResolver {
  @Query(() => County)
  async county(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<County> {
    return as(await ctx.core.counties.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => CountyPage)
  async counties(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<CountyPage> {
    return as(await ctx.core.counties.search(ctx.em, requireActor(ctx), filter, page));
  }
}
