import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { ControlUnit as ControlUnitEntity } from '../../src/places/control-unit.entity.js';
import type { TagsEgress as TagsEgressEntity } from '../../src/tags/tags-egress.entity.js';
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

const unit = async (ctx: Context, id: string) => ctx.loaders.unrestrictedControlUnitById.load(id);
const establishmentName = async (ctx: Context, unitId: string) => {
  const u = await unit(ctx, unitId);
  return u ? ((await ctx.loaders.unrestrictedEstablishmentById.load(u.establishment_id))?.str_name ?? null) : null;
};

@Resolver(() => TagsEgress)
export class TagsEgressFieldsResolver {
  @FieldResolver(() => ControlUnitReadOnly)
  async from_control_unit(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<ControlUnitReadOnly> {
    return (await unit(ctx, e.from_control_unit_id)) as unknown as ControlUnitReadOnly;
  }

  @FieldResolver(() => ControlUnitReadOnly)
  async to_control_unit(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<ControlUnitReadOnly> {
    return (await unit(ctx, e.to_control_unit_id)) as unknown as ControlUnitReadOnly;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_from_control_unit_code(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<string | null> {
    return (await unit(ctx, e.from_control_unit_id))?.str_code ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_to_control_unit_code(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<string | null> {
    return (await unit(ctx, e.to_control_unit_id))?.str_code ?? null;
  }

  @FieldResolver(() => String, { nullable: true })
  str_from_establishment_name(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<string | null> {
    return establishmentName(ctx, e.from_control_unit_id);
  }

  @FieldResolver(() => String, { nullable: true })
  str_to_establishment_name(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<string | null> {
    return establishmentName(ctx, e.to_control_unit_id);
  }

  @FieldResolver(() => [TagsEgressBox])
  tags_boxes(@Root() e: TagsEgressEntity, @Ctx() ctx: Context): Promise<TagsEgressBox[]> {
    return tagsLoaders(ctx).egressBoxes.load(e.id);
  }
}

@Resolver(() => ControlUnitReadOnly)
export class ControlUnitReadOnlyFieldsResolver {
  @FieldResolver(() => String, { nullable: true })
  async str_responsible_user_name(@Root() u: ControlUnitEntity, @Ctx() ctx: Context): Promise<string | null> {
    return u.responsible_user_id ? ((await ctx.loaders.userById.load(u.responsible_user_id))?.str_name ?? null) : null;
  }

  @FieldResolver(() => String, { nullable: true })
  async str_establishment_name(@Root() u: ControlUnitEntity, @Ctx() ctx: Context): Promise<string | null> {
    return (await ctx.loaders.unrestrictedEstablishmentById.load(u.establishment_id))?.str_name ?? null;
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
