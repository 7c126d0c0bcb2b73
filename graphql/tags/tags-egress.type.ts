import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { establishmentNameOfUnit, type Loaded, mapLoaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import type { OperationBoxRow } from '../../src/tags/tag-operations.reader.js';
import type { TagsEgress as TagsEgressRow } from '../../src/tags/tags-egress.entity.js';
import { MAX_BOXES } from '../../src/tags/tags-transfer.rules.js';
import { TagsBoxStatusEnum, TagsEgressStatusEnum, TagsEgressTypeEnum } from './enums.js';
import { tagsLoaders } from './tags.loaders.js';

@ObjectType('ControlUnitReadOnly', { description: "What either side of a tags egress reads of the other's unit (often another organization's): codes and names only" })
export class ControlUnitReadOnly {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_code!: string;
  @Field(() => String) str_name!: string;
  @Field(() => String, { nullable: true }) str_responsible_user_name!: string | null;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('TagsEgressBox', { description: 'A box of a tags egress' })
export class TagsEgressBox {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_code!: string;
  @Field(() => String) str_begin!: string;
  @Field(() => String) str_finish!: string;
  @Field(() => Int) int_quantity!: number;
  @Field(() => TagsBoxStatusEnum, { description: 'The box now' }) str_status!: string;
  @Field(() => TagsBoxStatusEnum, { description: 'The box before it left (IN_STOCK or OPENED): what a cancel or a rejection gives it back' }) str_box_status!: string;
}

@ObjectType('TagsEgress', { description: 'Boxes sent to another unit: SENT → RECEIVED | CANCELLED. Tags Egress and Tags Egress Partial Data are selections of it' })
export class TagsEgress {
  @Field(() => UUID) id!: string;
  @Field(() => TagsEgressTypeEnum) str_type!: string;
  @Field(() => TagsEgressStatusEnum) str_status!: string;
  @Field(() => UUID, { nullable: true }) from_control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true }) to_control_unit_id!: string | null;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => ControlUnitReadOnly) from_control_unit!: ControlUnitReadOnly;
  @Field(() => ControlUnitReadOnly) to_control_unit!: ControlUnitReadOnly;
  @Field(() => String, { nullable: true }) str_from_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_from_establishment_name!: string | null;
  @Field(() => String, { nullable: true }) str_to_control_unit_code!: string | null;
  @Field(() => String, { nullable: true }) str_to_establishment_name!: string | null;
  @Field(() => [TagsEgressBox]) tags_boxes!: TagsEgressBox[];
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** The other side's unit is read past every policy: its responsible user's name and its establishment's name are public. */
export const CONTROL_UNIT_READ_ONLY_NEEDS: Needs = {
  str_responsible_user_name: { path: ['any_responsible_user'] },
  str_establishment_name: { path: ['any_establishment'] },
};

export const TAGS_EGRESS_NEEDS: Needs = {
  from_control_unit: { path: ['from_control_unit'], next: () => CONTROL_UNIT_READ_ONLY_NEEDS },
  to_control_unit: { path: ['to_control_unit'], next: () => CONTROL_UNIT_READ_ONLY_NEEDS },
  str_from_control_unit_code: { path: ['from_control_unit'] },
  str_to_control_unit_code: { path: ['to_control_unit'] },
  str_from_establishment_name: { path: ['from_control_unit', 'any_establishment'] },
  str_to_establishment_name: { path: ['to_control_unit', 'any_establishment'] },
};

const unit = (ctx: Context, id: string): Loaded<ControlUnitRow | null> => ctx.loaders.unrestrictedControlUnitById.load(id);

@Resolver(() => TagsEgress)
export class TagsEgressFieldsResolver {
  @FieldResolver(() => ControlUnitReadOnly)
  from_control_unit(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return unit(ctx, e.from_control_unit_id);
  }

  @FieldResolver(() => ControlUnitReadOnly)
  to_control_unit(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return unit(ctx, e.to_control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  str_from_control_unit_code(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(unit(ctx, e.from_control_unit_id), (v) => v?.str_code ?? null);
  }

  @FieldResolver(() => String, { nullable: true })
  str_to_control_unit_code(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(unit(ctx, e.to_control_unit_id), (v) => v?.str_code ?? null);
  }

  @FieldResolver(() => String, { nullable: true })
  str_from_establishment_name(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return establishmentNameOfUnit(ctx.loaders, e.from_control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  str_to_establishment_name(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Loaded<string | null> {
    return establishmentNameOfUnit(ctx.loaders, e.to_control_unit_id);
  }

  @FieldResolver(() => [TagsEgressBox])
  tags_boxes(@Root() e: TagsEgressRow, @Ctx() ctx: Context): Promise<OperationBoxRow[]> {
    return tagsLoaders(ctx).egressBoxes.load(e.id);
  }
}

@Resolver(() => ControlUnitReadOnly)
export class ControlUnitReadOnlyFieldsResolver {
  @FieldResolver(() => String, { nullable: true })
  str_responsible_user_name(@Root() u: ControlUnitRow, @Ctx() ctx: Context): Loaded<string | null> {
    return u.responsible_user_id ? mapLoaded(ctx.loaders.userById.load(u.responsible_user_id), (v) => v?.str_name ?? null) : null;
  }

  @FieldResolver(() => String, { nullable: true })
  str_establishment_name(@Root() u: ControlUnitRow, @Ctx() ctx: Context): Loaded<string | null> {
    return mapLoaded(ctx.loaders.unrestrictedEstablishmentById.load(u.establishment_id), (v) => v?.str_name ?? null);
  }
}

@ObjectType('TagsEgressPage')
export class TagsEgressPage {
  @Field(() => [TagsEgress]) data!: TagsEgress[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('TagsEgressCreateBoxInput', { description: 'Tags Egress Create Tags Boxes: a box by id or by str_code' })
export class TagsEgressCreateBoxInput {
  @Field(() => String, { nullable: true }) id?: string;
  @Field(() => String, { nullable: true }) str_code?: string;
}

@InputType('TagsEgressCreateInput', { description: 'Tags Egress Create' })
export class TagsEgressCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: the unit the boxes leave (the caller works there)' }) from_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: "Required: any control unit, another organization's included" }) to_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: "Default: the caller; else a member of the origin's organization" }) operator_user_id?: string;
  @Field(() => String, { nullable: true, description: 'TRANSFER (default) or RETURN' }) str_type?: string;
  @Field(() => [TagsEgressCreateBoxInput], { nullable: true, description: `Required: boxes IN_STOCK or OPENED at the origin, at most ${MAX_BOXES}` }) tags_boxes?: TagsEgressCreateBoxInput[];
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}
