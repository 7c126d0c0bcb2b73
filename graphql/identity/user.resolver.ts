import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { User as UserEntity } from '../../src/identity/user.entity.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { Paged } from '../../src/shared/pagination.js';
import { OrganizationInviteTokenInput, USER_NEEDS, User, UserCreateInput, UserInvitation, UserPage, UserUpdateInput } from './user.type.js';
import type { Invitation } from '../../src/identity/organization-invite.service.js';
import { USER_SEARCH } from '../../src/identity/user.service.js';
import { inOrganization } from './user-as-seen.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => User)
export class UserResolver {
  @Query(() => User)
  async user(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<UserRow> {
    // The policy's scope: the caller, or a member of its active organization.
    const row = ctx.loaders.take(await ctx.core.users.read(ctx.db, requireActor(ctx), id, includeOf(info, USER_NEEDS)));
    inOrganization(ctx, [row]);
    return row;
  }

  @Query(() => UserPage, { description: 'Users the caller may see; filters as in CONTRACT.md "Search bodies".' })
  async users(
    @Args(searchArgsOf('User', USER_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<UserRow>> {
    const result = ctx.loaders.takePage(await ctx.core.users.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, USER_NEEDS)));
    inOrganization(ctx, result.data);
    return result;
  }

  @Mutation(() => UserInvitation, { description: "Invites a person to the active organization: a new address gets an account to confirm, an existing one an invitation to accept" })
  async createUser(@Arg('input', () => UserCreateInput) input: UserCreateInput, @Ctx() ctx: Context): Promise<Invitation> {
    return ctx.core.organizationInvites.invite(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Boolean, { description: 'Joins the organization an invitation mail names' })
  async acceptOrganizationInvite(@Arg('input', () => OrganizationInviteTokenInput, { nullable: true }) input: OrganizationInviteTokenInput | null, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.organizationInvites.decide(ctx.em, input?.str_token, true);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Declines the invitation a mail carries' })
  async declineOrganizationInvite(@Arg('input', () => OrganizationInviteTokenInput, { nullable: true }) input: OrganizationInviteTokenInput | null, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.organizationInvites.decide(ctx.em, input?.str_token, false);
    return true;
  }

  @Mutation(() => User)
  async updateUser(@Arg('id', () => UUID) id: string, @Arg('input', () => UserUpdateInput) input: UserUpdateInput, @Ctx() ctx: Context): Promise<UserEntity> {
    return ctx.core.users.update(ctx.em, requireActor(ctx), id, input);
  }
}
