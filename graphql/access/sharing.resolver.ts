import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, Info, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';
import { SHARING_FILTERS } from '../../src/access/sharing.service.js';
import type { Sharing as SharingRow } from '../../src/access/sharing.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { SHARING_NEEDS, Sharing, SharingCreateInput, SharingPage, SharingUpdateInput } from './sharing.type.js';

@Resolver(() => Sharing)
export class SharingResolver {
  @Query(() => Sharing)
  async sharing(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<SharingRow> {
    return ctx.loaders.take(await ctx.core.sharings.read(ctx.db, requireActor(ctx), id, includeOf(info, SHARING_NEEDS)));
  }

  @Query(() => SharingPage, { description: "The active organization's sharings" })
  async sharings(
    @Args(searchArgsOf('Sharing', SHARING_FILTERS)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<SharingRow>> {
    return ctx.loaders.takePage(await ctx.core.sharings.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, SHARING_NEEDS)));
  }

  @Mutation(() => Sharing, { description: 'Owners and managers share establishments or units of the active organization' })
  async createSharing(@Arg('input', () => SharingCreateInput) input: SharingCreateInput, @Ctx() ctx: Context): Promise<SharingRow> {
    return ctx.core.sharings.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Sharing, { description: 'The fields given change; a list given replaces the stored one' })
  async updateSharing(@Arg('id', () => UUID) id: string, @Arg('input', () => SharingUpdateInput) input: SharingUpdateInput, @Ctx() ctx: Context): Promise<SharingRow> {
    return ctx.core.sharings.update(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Boolean, { description: 'The sharing goes, and every access it gave' })
  async deleteSharing(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.sharings.remove(ctx.em, requireActor(ctx), id);
    return true;
  }
}
