import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { mapLoaded, type Loaded } from '../loaders.js';
import { inOrganization } from './user-as-seen.js';
import type { Needs } from '../lookahead.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { RoleEnum } from './enums.js';
import { USER_NEEDS, User } from './user.type.js';
import type { Membership as MembershipRow } from '../../src/identity/membership.entity.js';
import type { UserRow } from '../../src/identity/user.reader.js';

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

/** A membership's user is joined with the membership when the query selects it. */
export const MEMBERSHIP_NEEDS: Needs = { user: { path: ['user'], next: () => USER_NEEDS } };

@Resolver(() => Membership)
export class MembershipFieldsResolver {
  @FieldResolver(() => User)
  user(@Root() m: MembershipRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return mapLoaded(ctx.loaders.userById.load(m.user_id), (u) => (u ? inOrganization(ctx, [u], m.organization_id)[0]! : null));
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
