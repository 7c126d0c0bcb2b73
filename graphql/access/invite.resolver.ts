import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { Invite as InviteRow } from '../../src/access/invite.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { INVITE_NEEDS, Invite, InviteCreateInput, InvitePage, InviteUpdateInput } from './invite.type.js';
import { INVITE_SEARCH } from '../../src/access/invite.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => Invite)
export class InviteResolver {
  @Query(() => Invite)
  async invite(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<InviteRow> {
    return ctx.loaders.take(await ctx.core.invites.read(ctx.db, requireActor(ctx), id, includeOf(info, INVITE_NEEDS)));
  }

  @Query(() => InvitePage, { description: "Invites of the caller's organization and to the caller" })
  async invites(
    @Args(searchArgsOf('Invite', INVITE_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<InviteRow>> {
    return ctx.loaders.takePage(await ctx.core.invites.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, INVITE_NEEDS)));
  }

  @Mutation(() => Invite)
  async createInvite(@Arg('input', () => InviteCreateInput) input: InviteCreateInput, @Ctx() ctx: Context): Promise<InviteRow> {
    return ctx.core.invites.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Invite, { description: 'The invitee accepts (bl_accepted); the author changes the rest while PENDING' })
  async updateInvite(@Arg('id', () => UUID) id: string, @Arg('input', () => InviteUpdateInput) input: InviteUpdateInput, @Ctx() ctx: Context): Promise<InviteRow> {
    return ctx.core.invites.update(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Invite, { description: 'The author revokes the invite' })
  async revokeInvite(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<InviteRow> {
    return ctx.core.invites.revoke(ctx.em, requireActor(ctx), id);
  }

  @Mutation(() => Boolean, { description: 'The author revokes the invite (as revokeInvite)' })
  async deleteInvite(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.invites.revoke(ctx.em, requireActor(ctx), id);
    return true;
  }
}
