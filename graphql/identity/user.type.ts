import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { mapLoaded, type Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { InvitationStatusEnum, RoleEnum, UserTypeEnum } from './enums.js';
import type { OrganizationRef } from '../loaders.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import { personal, seesWhole } from './user-as-seen.js';

/**
 * A user's organizations are joined with the user when the query selects them, or any field only
 * some readers see (whether the reader sees it hangs on them): no statement of its own.
 */
const ORGANIZATIONS = { path: ['organizations'] };
export const USER_NEEDS: Needs = Object.fromEntries(
  ['organizations', 'str_email', 'str_document', 'str_phone', 'bl_admin', 'bl_verified', 'county_id', 'organization_id', 'ts_terms_accepted_at'].map((field) => [field, ORGANIZATIONS]),
);

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
  @Field(() => String, { nullable: true, description: 'Null outside the person’s organizations (CONTRACT.md, Accounts), as every field but id, str_name, str_type and the timestamps' }) str_email!: string | null;
  @Field(() => String, { nullable: true }) str_document!: string | null;
  @Field(() => UserTypeEnum) str_type!: string;
  @Field(() => Boolean, { nullable: true }) bl_admin!: boolean | null;
  @Field(() => Boolean, { nullable: true }) bl_verified!: boolean | null;
  @Field(() => String, { nullable: true }) str_phone!: string | null;
  @Field(() => UUID, { nullable: true }) county_id!: string | null;
  @Field(() => UUID, { nullable: true }) organization_id!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_terms_accepted_at!: Date | null;
  @Field(() => [UserOrganization], { description: 'Empty outside the person’s organizations' }) organizations!: UserOrganization[];
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** A person's own data: the whole record for the person, administrators and their organizations' owners and managers; null for everyone else. */
@Resolver(() => User)
export class UserFieldsResolver {
  @FieldResolver(() => [UserOrganization])
  organizations(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<OrganizationRef[]> {
    return mapLoaded(seesWhole(ctx, user), (whole) => (whole ? ctx.loaders.organizationsOfUser.load(user.id) : []));
  }

  @FieldResolver(() => String, { nullable: true })
  str_email(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<string | null> {
    return personal(ctx, user, user.str_email);
  }

  @FieldResolver(() => String, { nullable: true })
  str_document(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<string | null> {
    return personal(ctx, user, user.str_document);
  }

  @FieldResolver(() => String, { nullable: true })
  str_phone(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<string | null> {
    return personal(ctx, user, user.str_phone);
  }

  @FieldResolver(() => Boolean, { nullable: true })
  bl_admin(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<boolean | null> {
    return personal(ctx, user, user.bl_admin);
  }

  @FieldResolver(() => Boolean, { nullable: true })
  bl_verified(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<boolean | null> {
    return personal(ctx, user, user.bl_verified);
  }

  @FieldResolver(() => UUID, { nullable: true })
  county_id(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<string | null> {
    return personal(ctx, user, user.county_id);
  }

  @FieldResolver(() => UUID, { nullable: true })
  organization_id(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<string | null> {
    return personal(ctx, user, user.organization_id);
  }

  @FieldResolver(() => DateTime, { nullable: true })
  ts_terms_accepted_at(@Root() user: UserRow, @Ctx() ctx: Context): Loaded<Date | null> {
    return personal(ctx, user, user.ts_terms_accepted_at);
  }
}

@ObjectType('UserPage')
export class UserPage {
  @Field(() => [User]) data!: User[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('UserInvitation', { description: "POST /api/users's answer: the same whether the address or CPF already has an account (CONTRACT.md, Accounts)" })
export class UserInvitation {
  @Field(() => InvitationStatusEnum) str_status!: string;
  @Field(() => String) str_email!: string;
}

@InputType('OrganizationInviteTokenInput')
export class OrganizationInviteTokenInput {
  @Field(() => String, { nullable: true, description: 'The code the invitation mail carries' }) str_token?: string;
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

