import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { MemberInput, MemberRoleInput, Membership, MembershipPage, Organization, OrganizationCreateInput, OrganizationPage, OrganizationUpdateInput } from './organization.type.js';

const as = <T>(v: unknown) => v as T;

@Resolver(() => Organization)
export class OrganizationResolver {
  @Query(() => Organization)
  async organization(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<Organization> {
    return as(await ctx.core.organizations.get(ctx.em, requireActor(ctx), id));
  }

  @Query(() => OrganizationPage)
  async organizations(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<OrganizationPage> {
    return as(await ctx.core.organizations.search(ctx.em, requireActor(ctx), filter, page));
  }

  @Mutation(() => Organization)
  async createOrganization(@Arg('input', () => OrganizationCreateInput) input: OrganizationCreateInput, @Ctx() ctx: Context): Promise<Organization> {
    return as(await ctx.core.organizations.create(ctx.em, requireActor(ctx), input));
  }

  @Mutation(() => Organization)
  async updateOrganization(@Arg('id', () => UUID) id: string, @Arg('input', () => OrganizationUpdateInput) input: OrganizationUpdateInput, @Ctx() ctx: Context): Promise<Organization> {
    return as(await ctx.core.organizations.update(ctx.em, requireActor(ctx), id, input));
  }

  @Query(() => MembershipPage)
  async organizationMembers(@Arg('id', () => UUID) id: string, @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<MembershipPage> {
    return as(await ctx.core.organizations.members(ctx.em, requireActor(ctx), id, page));
  }

  @Mutation(() => Membership)
  async addOrganizationMember(@Arg('id', () => UUID) id: string, @Arg('input', () => MemberInput) input: MemberInput, @Ctx() ctx: Context): Promise<Membership> {
    return as(await ctx.core.organizations.addMember(ctx.em, requireActor(ctx), id, input.user_id, input.str_role));
  }

  @Mutation(() => Membership)
  async changeOrganizationMemberRole(@Arg('id', () => UUID) id: string, @Arg('user_id', () => UUID) userId: string, @Arg('input', () => MemberRoleInput) input: MemberRoleInput, @Ctx() ctx: Context): Promise<Membership> {
    return as(await ctx.core.organizations.changeRole(ctx.em, requireActor(ctx), id, userId, input.str_role));
  }

  @Mutation(() => Boolean)
  async removeOrganizationMember(@Arg('id', () => UUID) id: string, @Arg('user_id', () => UUID) userId: string, @Ctx() ctx: Context): Promise<boolean> {
    await ctx.core.organizations.removeMember(ctx.em, requireActor(ctx), id, userId);
    return true;
  }
}
