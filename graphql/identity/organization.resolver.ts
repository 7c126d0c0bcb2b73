import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { Membership as MembershipRow } from '../../src/identity/membership.entity.js';
import type { Organization as OrganizationRow } from '../../src/identity/organization.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { MEMBERSHIP_NEEDS, MemberInput, MemberRoleInput, Membership, MembershipPage, Organization, OrganizationCreateInput, OrganizationPage, OrganizationUpdateInput } from './organization.type.js';
import { ORGANIZATION_SEARCH } from '../../src/identity/organization.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

/** An organization has no relations: nothing to join. */
const NONE = {};

@Resolver(() => Organization)
export class OrganizationResolver {
  @Query(() => Organization)
  async organization(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<OrganizationRow> {
    return ctx.loaders.take(await ctx.core.organizations.read(ctx.db, requireActor(ctx), id, NONE));
  }

  @Query(() => OrganizationPage)
  async organizations(
    @Args(searchArgsOf('Organization', ORGANIZATION_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<OrganizationRow>> {
    return ctx.loaders.takePage(await ctx.core.organizations.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, NONE)));
  }

  @Mutation(() => Organization)
  async createOrganization(@Arg('input', () => OrganizationCreateInput) input: OrganizationCreateInput, @Ctx() ctx: Context): Promise<OrganizationRow> {
    return ctx.core.organizations.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Organization)
  async updateOrganization(@Arg('id', () => UUID) id: string, @Arg('input', () => OrganizationUpdateInput) input: OrganizationUpdateInput, @Ctx() ctx: Context): Promise<OrganizationRow> {
    return ctx.core.organizations.update(ctx.em, requireActor(ctx), id, input);
  }

  @Query(() => MembershipPage)
  async organizationMembers(
    @Arg('id', () => UUID) id: string,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<MembershipRow>> {
    return ctx.loaders.takePage(await ctx.core.organizations.members(ctx.db, requireActor(ctx), id, page, pageLookahead(info, MEMBERSHIP_NEEDS)));
  }

  @Mutation(() => Membership)
  async addOrganizationMember(@Arg('id', () => UUID) id: string, @Arg('input', () => MemberInput) input: MemberInput, @Ctx() ctx: Context): Promise<MembershipRow> {
    return ctx.core.organizations.addMember(ctx.em, requireActor(ctx), id, input.user_id, input.str_role);
  }

  @Mutation(() => Membership)
  async changeOrganizationMemberRole(@Arg('id', () => UUID) id: string, @Arg('user_id', () => UUID) userId: string, @Arg('input', () => MemberRoleInput) input: MemberRoleInput, @Ctx() ctx: Context): Promise<MembershipRow> {
    return ctx.core.organizations.changeRole(ctx.em, requireActor(ctx), id, userId, input.str_role);
  }

  @Mutation(() => Boolean)
  async removeOrganizationMember(@Arg('id', () => UUID) id: string, @Arg('user_id', () => UUID) userId: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.organizations.removeMember(ctx.em, requireActor(ctx), id, userId);
    return true;
  }
}
