import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { County as CountyRow } from '../../src/places/county.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { County, CountyPage } from './county.type.js';
import { COUNTY_SEARCH } from '../../src/places/county.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

/** A county has no relations: nothing to join. */
const NONE = {};

@Resolver(() => County)
export class CountyResolver {
  @Query(() => County)
  async county(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<CountyRow> {
    return ctx.loaders.take(await ctx.core.counties.read(ctx.db, requireActor(ctx), id, NONE));
  }

  @Query(() => CountyPage)
  async counties(
    @Args(searchArgsOf('County', COUNTY_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<CountyRow>> {
    return ctx.loaders.takePage(await ctx.core.counties.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, NONE)));
  }
}
