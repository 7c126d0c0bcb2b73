import { Ctx, Field, FieldResolver, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { CONTROL_UNIT_NEEDS } from '../places/establishment.type.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { Tag as TagRow } from '../../src/tags/tag.entity.js';
import type { TagsReservation as TagsReservationRow } from '../../src/tags/tags-reservation.entity.js';
import { TagStatusEnum, TagsBoxStatusEnum, TagsReservationStatusEnum } from './enums.js';

// Tag and TagsReservation refer to each other: one file, so decorator metadata never meets an uninitialized class.

@ObjectType('TagsReservation', { description: 'Available tags of a unit held for an operator: ACTIVE → RELEASED | USED' })
export class TagsReservation {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_name!: string;
  @Field(() => Int, { description: 'How many tags were reserved' }) int_quantity!: number;
  @Field(() => TagsReservationStatusEnum) str_status!: string;
  @Field(() => UUID, { nullable: true }) control_unit_id!: string | null;
  @Field(() => ControlUnit) control_unit!: ControlUnit;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => User, { nullable: true }) operator_user!: User | null;
  @Field(() => String, { nullable: true }) str_begin!: string | null;
  @Field(() => String, { nullable: true }) str_finish!: string | null;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true }) str_label!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('Tag', { description: 'An eartag (ISO 11784 code). Tag Partial Data, Tag Data Without Animal and Tag Data Without Assoc are selections of it' })
export class Tag {
  @Field(() => UUID) id!: string;
  @Field(() => String, { description: '15 digits: 076 + 12 for Brazilian tags; any 15 for external ones' }) str_code!: string;
  @Field(() => TagStatusEnum) str_status!: string;
  @Field(() => Boolean) bl_external_tag!: boolean;
  @Field(() => UUID, { nullable: true }) animal_id!: string | null;
  @Field(() => UUID, { nullable: true }) last_control_unit_id!: string | null;
  @Field(() => ControlUnit, { nullable: true }) last_control_unit!: ControlUnit | null;
  @Field(() => UUID, { nullable: true }) tags_box_id!: string | null;
  @Field(() => UUID, { nullable: true, description: 'Set while RESERVED' }) tags_reservation_id!: string | null;
  @Field(() => TagsReservation, { nullable: true }) tags_reservation!: TagsReservation | null;
  @Field(() => String, { nullable: true }) str_writeoff_reason!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_writeoff_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('TagsBox', { description: "A supplier's box: one contiguous range of codes. IN_STOCK → IN_TRANSIT → IN_STOCK; OPENED; DEPLETED" })
export class TagsBox {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_code!: string;
  @Field(() => String) str_begin!: string;
  @Field(() => String) str_finish!: string;
  @Field(() => Int) int_quantity!: number;
  @Field(() => TagsBoxStatusEnum) str_status!: string;
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const TAGS_RESERVATION_NEEDS: Needs = {
  control_unit: { path: ['control_unit'], next: () => CONTROL_UNIT_NEEDS },
  operator_user: { path: ['operator_user'], next: () => USER_NEEDS },
};

export const TAG_NEEDS: Needs = {
  last_control_unit: { path: ['last_control_unit'], next: () => CONTROL_UNIT_NEEDS },
  tags_reservation: { path: ['tags_reservation'], next: () => TAGS_RESERVATION_NEEDS },
};

const unitOf = (ctx: Context, id: string | null) => (id ? ctx.loaders.unrestrictedControlUnitById.load(id) : null);

@Resolver(() => Tag)
export class TagFieldsResolver {
  @FieldResolver(() => ControlUnit, { nullable: true })
  last_control_unit(@Root() t: TagRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return unitOf(ctx, t.last_control_unit_id);
  }

  @FieldResolver(() => TagsReservation, { nullable: true })
  tags_reservation(@Root() t: TagRow, @Ctx() ctx: Context): Loaded<TagsReservationRow | null> {
    return t.tags_reservation_id ? ctx.loaders.tagsReservationById.load(t.tags_reservation_id) : null;
  }
}

@Resolver(() => TagsReservation)
export class TagsReservationFieldsResolver {
  @FieldResolver(() => ControlUnit)
  control_unit(@Root() r: TagsReservationRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return unitOf(ctx, r.control_unit_id);
  }

  @FieldResolver(() => User, { nullable: true })
  operator_user(@Root() r: TagsReservationRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return r.operator_user_id ? ctx.loaders.userById.load(r.operator_user_id) : null;
  }
}

@ObjectType('TagPage')
export class TagPage {
  @Field(() => [Tag]) data!: Tag[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('TagsBoxPage')
export class TagsBoxPage {
  @Field(() => [TagsBox]) data!: TagsBox[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@ObjectType('TagsReservationPage')
export class TagsReservationPage {
  @Field(() => [TagsReservation]) data!: TagsReservation[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}
