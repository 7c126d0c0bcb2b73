import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { asEnum } from '../shared/enums.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { Sharing as SharingRow } from '../../src/access/sharing.entity.js';
import type { SharingAccessRow, SharingGranteeRow } from '../../src/access/sharing.reader.js';
import { SHARING_SCOPES, SHARING_STATUSES, sharingStatus } from '../../src/access/sharing.rules.js';

export const SharingStatusEnum = asEnum(SHARING_STATUSES);
export const SharingScopeEnum = asEnum(SHARING_SCOPES);
registerEnumType(SharingStatusEnum, { name: 'SharingStatus' });
registerEnumType(SharingScopeEnum, { name: 'SharingScope' });

@ObjectType('SharingGrantee', { description: 'A granted user or organization: its id and name, nothing private' })
export class SharingGrantee {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_name!: string;
}

@ObjectType('SharingAccess', { description: 'What one access opens: an establishment (every unit of it) or one control unit, for a scope' })
export class SharingAccess {
  @Field(() => UUID) establishment_id!: string;
  @Field(() => String) str_establishment_name!: string;
  @Field(() => UUID, { nullable: true, description: 'Null: every unit of the establishment' }) control_unit_id!: string | null;
  @Field(() => String, { nullable: true }) str_control_unit_code!: string | null;
  @Field(() => SharingScopeEnum) str_scope!: string;
}

@ObjectType('Sharing', { description: 'Read access an organization grants users and organizations to its establishments or units (DOMAIN.md, "Access between organizations")' })
export class Sharing {
  @Field(() => UUID) id!: string;
  @Field(() => UUID, { description: 'The granting organization' }) organization_id!: string;
  @Field(() => Boolean) bl_deactivated_manually!: boolean;
  @Field(() => SharingStatusEnum, { description: 'Derived on read: DEACTIVATED, SCHEDULED (before ts_scheduled_to), EXPIRED (from ts_expires_at) or ACTIVE; only ACTIVE grants' }) str_status!: string;
  @Field(() => String) str_name!: string;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => [SharingGrantee], { description: 'The granted users (lst_user_ids)' }) users!: SharingGrantee[];
  @Field(() => [SharingGrantee], { description: 'The granted organizations (lst_org_ids): their members while it is their active organization' }) organizations!: SharingGrantee[];
  @Field(() => [SharingAccess]) accesses!: SharingAccess[];
  @Field(() => DateTime, { nullable: true }) ts_scheduled_to!: Date | null;
  @Field(() => DateTime, { nullable: true }) ts_expires_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** The lists are aggregated in the sharing's statement when the query selects them. */
export const SHARING_NEEDS: Needs = {
  users: { path: ['users'] },
  organizations: { path: ['organizations'] },
  accesses: { path: ['accesses'] },
};

@Resolver(() => Sharing)
export class SharingFieldsResolver {
  @FieldResolver(() => SharingStatusEnum)
  str_status(@Root() s: SharingRow, @Ctx() ctx: Context): string {
    return sharingStatus(s, ctx.actor?.now ?? new Date());
  }

  @FieldResolver(() => [SharingGrantee])
  users(@Root() s: SharingRow, @Ctx() ctx: Context): Loaded<SharingGranteeRow[]> {
    return ctx.loaders.usersOfSharing.load(s.id);
  }

  @FieldResolver(() => [SharingGrantee])
  organizations(@Root() s: SharingRow, @Ctx() ctx: Context): Loaded<SharingGranteeRow[]> {
    return ctx.loaders.organizationsOfSharing.load(s.id);
  }

  @FieldResolver(() => [SharingAccess])
  accesses(@Root() s: SharingRow, @Ctx() ctx: Context): Loaded<SharingAccessRow[]> {
    return ctx.loaders.accessesOfSharing.load(s.id);
  }
}

@ObjectType('SharingPage')
export class SharingPage {
  @Field(() => [Sharing]) data!: Sharing[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('SharingAccessInput')
export class SharingAccessInput {
  @Field(() => String, { nullable: true, description: 'An establishment of the organization (every unit of it); optional with control_unit_id, and then its establishment' }) establishment_id?: string;
  @Field(() => String, { nullable: true, description: 'One control unit of the organization' }) control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Required: ANIMALS, MOVEMENTS, TAGS or ALL' }) str_scope?: string;
}

/** Sharing Create and Sharing Update (interface.md): the same fields, all optional; `accesses` besides, which interface.md's body does not show. */
@InputType('SharingUpdateInput')
export class SharingUpdateInput {
  @Field(() => String, { nullable: true, description: 'Required on create' }) str_name?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => Boolean, { nullable: true, description: 'true: DEACTIVATED, it grants nothing' }) bl_deactivated_manually?: boolean;
  @Field(() => [String], { nullable: true, description: 'Users granted (replaces the list)' }) lst_user_ids?: string[];
  @Field(() => [String], { nullable: true, description: 'Organizations granted (replaces the list): their members, while it is their active organization' }) lst_org_ids?: string[];
  @Field(() => [SharingAccessInput], { nullable: true, description: 'What is shared (replaces the list)' }) accesses?: SharingAccessInput[];
  @Field(() => DateTime, { nullable: true, description: 'SCHEDULED before this instant; null: from now' }) ts_scheduled_to?: Date;
  @Field(() => DateTime, { nullable: true, description: 'EXPIRED from this instant (after ts_scheduled_to); null: never' }) ts_expires_at?: Date;
}

@InputType('SharingCreateInput')
export class SharingCreateInput extends SharingUpdateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
}
