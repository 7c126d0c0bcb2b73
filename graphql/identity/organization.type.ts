import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { RoleEnum } from './enums.js';
import { User } from './user.type.js';
import type { Membership as MembershipEntity } from '../../src/identity/membership.entity.js';

@ObjectType('Organization')
export class Organization {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_name!: string;
  @Field(() => String) str_document!: string;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('OrganizationPage')
export class OrganizationPage {
  @Field(() => [Organization]) data!: Organization[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('Membership')
export class Membership {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) user_id!: string;
  @Field(() => UUID) organization_id!: string;
  @Field(() => RoleEnum) str_role!: string;
  @Field(() => User) user!: User;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@Resolver(() => Membership)
export class MembershipFieldsResolver {
  @FieldResolver(() => User)
  async user(@Root() m: MembershipEntity, @Ctx() ctx: Context): Promise<User> {
    return (await ctx.loaders.userById.load(m.user_id)) as unknown as User;
  }
}

@ObjectType('MembershipPage')
export class MembershipPage {
  @Field(() => [Membership]) data!: Membership[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('OrganizationCreateInput')
export class OrganizationCreateInput {
  @Field(() => UUID, { nullable: true }) id?: string;
  @Field(() => String) str_name!: string;
  @Field(() => String) str_document!: string;
  @Field(() => UUID, { nullable: true, description: 'Administrators only: the first owner (default: the caller)' }) owner_user_id?: string;
}

@InputType('OrganizationUpdateInput')
export class OrganizationUpdateInput {
  @Field(() => String, { nullable: true }) str_name?: string;
  @Field(() => String, { nullable: true }) str_document?: string;
}

@InputType('MemberInput')
export class MemberInput {
  @Field(() => UUID) user_id!: string;
  @Field(() => RoleEnum) str_role!: string;
}

@InputType('MemberRoleInput')
export class MemberRoleInput {
  @Field(() => RoleEnum) str_role!: string;
}
