import { Ctx, Query, Resolver } from 'type-graphql';
import type { Home as HomeRow } from '../../src/home/home.service.js';
import { requireActor, type Context } from '../context.js';
import { Home } from './home.type.js';

@Resolver()
export class HomeResolver {
  @Query(() => Home, { description: 'The counts of the active organization' })
  home(@Ctx() ctx: Context): Promise<HomeRow> {
    return ctx.core.home.read(ctx.db, requireActor(ctx));
  }
}
