import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { RoleEnum, UserTypeEnum } from './enums.js';
import type { OrganizationRef } from '../loaders.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import { isMasked } from '../../src/identity/user.masks.js';

/** A user's organizations are joined with the user when the query selects them. */
export const USER_NEEDS: Needs = { organizations: { path: ['organizations'] } };

@ObjectType('UserOrganization')
export class UserOrganization {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_name!: string;
  @Field(() => RoleEnum) str_role!: string;
}

@ObjectType('User')
export class User {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_name!: string;
  @Field(() => String) str_email!: string;
  @Field(() => String) str_document!: string;
  @Field(() => UserTypeEnum) str_type!: string;
  @Field(() => Boolean) bl_admin!: boolean;
  @Field(() => Boolean) bl_verified!: boolean;
  @Field(() => String, { nullable: true }) str_phone!: string | null;
  @Field(() => UUID, { nullable: true }) county_id!: string | null;
  @Field(() => UUID, { nullable: true }) organization_id!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_terms_accepted_at!: Date | null;
  @Field(() => [UserOrganization]) organizations!: UserOrganization[];
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@Resolver(() => User)
export class UserFieldsResolver {
  @FieldResolver(() => [UserOrganization])
  organizations(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<OrganizationRef[]> {
    return isMasked(user) ? [] : ctx.loaders.organizationsOfUser.load(user.id);
  }
}

@ObjectType('UserPage')
export class UserPage {
  @Field(() => [User]) data!: User[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('UserCreateInput')
export class UserCreateInput {
  @Field(() => UUID, { nullable: true }) id?: string;
  @Field(() => String) str_document!: string;
  @Field(() => String) str_email!: string;
  @Field(() => String) str_name!: string;
  @Field(() => Boolean, { nullable: true }) bl_admin?: boolean;
  @Field(() => String, { nullable: true }) str_phone?: string;
  @Field(() => UserTypeEnum, { nullable: true }) str_type?: string;
  @Field(() => RoleEnum, { nullable: true, description: 'Role in the active organization (default OPERATOR)' }) str_role?: string;
}

@InputType('UserUpdateInput')
export class UserUpdateInput {
  @Field(() => UUID, { nullable: true }) county_id?: string | null;
  @Field(() => UUID, { nullable: true }) org_id?: string | null;
  @Field(() => UUID, { nullable: true }) organization_id?: string | null;
  @Field(() => String, { nullable: true }) str_document?: string | null;
  @Field(() => String, { nullable: true }) str_email?: string | null;
  @Field(() => String, { nullable: true }) str_name?: string | null;
  @Field(() => String, { nullable: true }) str_phone?: string | null;
  @Field(() => UserTypeEnum, { nullable: true }) str_type?: string | null;
  @Field(() => Boolean, { nullable: true }) bl_admin?: boolean | null;
}

@InputType('SelfUpdateInput')
export class SelfUpdateInput {
  @Field(() => String, { nullable: true }) str_name?: string | null;
  @Field(() => String, { nullable: true }) str_phone?: string | null;
  @Field(() => String, { nullable: true }) str_email?: string | null;
  @Field(() => UUID, { nullable: true }) county_id?: string | null;
  @Field(() => String, { nullable: true }) str_current_password?: string | null;
  @Field(() => String, { nullable: true }) str_new_password?: string | null;
}

