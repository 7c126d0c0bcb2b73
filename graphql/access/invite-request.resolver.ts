import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { InviteRequest as InviteRequestRow } from '../../src/access/invite-request.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { INVITE_REQUEST_NEEDS, InviteRequest, InviteRequestCreateInput, InviteRequestPage } from './invite-request.type.js';
import { INVITE_REQUEST_SEARCH } from '../../src/access/invite-request.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => InviteRequest)
export class InviteRequestResolver {
  @Query(() => InviteRequest)
  async inviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<InviteRequestRow> {
    return ctx.loaders.take(await ctx.core.inviteRequests.read(ctx.db, requireActor(ctx), id, includeOf(info, INVITE_REQUEST_NEEDS)));
  }

  @Query(() => InviteRequestPage, { description: "The caller's requests and those to its organization's units" })
  async inviteRequests(
    @Args(searchArgsOf('InviteRequest', INVITE_REQUEST_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<InviteRequestRow>> {
    return ctx.loaders.takePage(await ctx.core.inviteRequests.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, INVITE_REQUEST_NEEDS)));
  }

  @Mutation(() => InviteRequest)
  async createInviteRequest(@Arg('input', () => InviteRequestCreateInput) input: InviteRequestCreateInput, @Ctx() ctx: Context): Promise<InviteRequestRow> {
    return ctx.core.inviteRequests.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => InviteRequest, { description: 'Creates an accepted invite for the requester' })
  async approveInviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequestRow> {
    return ctx.core.inviteRequests.approve(ctx.em, requireActor(ctx), id);
  }

  @Mutation(() => InviteRequest)
  async denyInviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequestRow> {
    return ctx.core.inviteRequests.deny(ctx.em, requireActor(ctx), id);
  }

  @Mutation(() => InviteRequest)
  async cancelInviteRequest(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRequestRow> {
    return ctx.core.inviteRequests.cancel(ctx.em, requireActor(ctx), id);
  }
}
