import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { Invite, InviteCreateInput, InvitePage, InviteUpdateInput } from './invite.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => Invite)
export class InviteResolver {
  @Query(() => Invite)
  async invite(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Invite> {
    return as(await ctx.core.invites.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => InvitePage, { description: "Invites of the caller's organization and to the caller" })
  async invites(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<InvitePage> {
    return as(await ctx.core.invites.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => Invite)
  async createInvite(@Arg('input', () => InviteCreateInput) input: InviteCreateInput, @Ctx() ctx: Context): Promise<Invite> {
    return as(await ctx.core.invites.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => Invite, { description: 'The invitee accepts (bl_accepted); the author changes the rest while PENDING' })
  async updateInvite(@Arg('id', () => UUID) id: string, @Arg('input', () => InviteUpdateInput) input: InviteUpdateInput, @Ctx() ctx: Context): Promise<Invite> {
    return as(await ctx.core.invites.update(ctx.em, requireActor(ctx), id, input));
  }

  @Mutation(() => Invite, { description: 'The author revokes the invite' })
  async revokeInvite(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Invite> {
    return as(await ctx.core.invites.revoke(ctx.em, requireActor(ctx), id));
  }

  @Mutation(() => Boolean, { description: 'The author revokes the invite (as revokeInvite)' })
  async deleteInvite(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.invites.revoke(ctx.em, requireActor(ctx), id);
    return true;
  }
}
