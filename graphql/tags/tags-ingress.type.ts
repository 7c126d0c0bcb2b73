import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import type { OperationBoxRow } from '../../src/tags/tag-operations.reader.js';
import type { TagsIngress as TagsIngressRow } from '../../src/tags/tags-ingress.entity.js';
import { MAX_BOXES } from '../../src/tags/tags-transfer.rules.js';
import { TagsBoxStatusEnum, TagsIngressBoxStatusEnum, TagsIngressStatusEnum } from './enums.js';
import { tagsLoaders } from './tags.loaders.js';

@ObjectType('TagsIngressBox', { description: 'A box of a tags ingress and its evaluation' })
export class TagsIngressBox {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_code!: string;
  @Field(() => String) str_begin!: string;
  @Field(() => String) str_finish!: string;
  @Field(() => Int) int_quantity!: number;
  @Field(() => TagsIngressBoxStatusEnum, { description: 'The evaluation: PENDING, ACCEPTED or REJECTED' }) str_status!: string;
  @Field(() => TagsBoxStatusEnum, { description: 'The box now' }) str_box_status!: string;
}

@ObjectType('TagsIngress', { description: 'Boxes arriving at a control unit, from a supplier or a tags egress: PENDING → EVALUATED | PARTIALLY_ACCEPTED' })
export class TagsIngress {
  @Field(() => UUID) id!: string;
  @Field(() => TagsIngressStatusEnum) str_status!: string;
  @Field(() => UUID) to_control_unit_id!: string;
  @Field(() => ControlUnit) to_control_unit!: ControlUnit;
  @Field(() => UUID, { nullable: true, description: 'Set when the boxes came from a tags egress; null from a supplier' }) tags_egress_id!: string | null;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true }) str_label!: string | null;
  @Field(() => [TagsIngressBox]) tags_boxes!: TagsIngressBox[];
  @Field(() => DateTime, { nullable: true }) ts_evaluated_at!: Date | null;
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const TAGS_INGRESS_NEEDS: Needs = {
  to_control_unit: { path: ['to_control_unit'], next: () => CONTROL_UNIT_NEEDS },
};

@Resolver(() => TagsIngress)
export class TagsIngressFieldsResolver {
  @FieldResolver(() => ControlUnit)
  to_control_unit(@Root() i: TagsIngressRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(i.to_control_unit_id);
  }

  @FieldResolver(() => [TagsIngressBox])
  tags_boxes(@Root() i: TagsIngressRow, @Ctx() ctx: Context): Promise<OperationBoxRow[]> {
    return tagsLoaders(ctx).ingressBoxes.load(i.id);
  }
}

@ObjectType('TagsIngressPage')
export class TagsIngressPage {
  @Field(() => [TagsIngress]) data!: TagsIngress[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('TagsIngressCreateBoxInput', { description: "A supplier's box: one contiguous range of codes" })
export class TagsIngressCreateBoxInput {
  @Field(() => String, { nullable: true, description: 'Client-generated uuid of the box' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Default: str_begin-str_finish' }) str_code?: string;
  @Field(() => String, { nullable: true, description: 'Required: 076 + 12 digits' }) str_begin?: string;
  @Field(() => String, { nullable: true, description: 'Required: 076 + 12 digits, not before str_begin' }) str_finish?: string;
}

@InputType('TagsIngressCreateInput', { description: 'Tags Ingress Create: give tags_boxes, or str_begin + str_finish (+ int_box_size), or tags_egress_id' })
export class TagsIngressCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: the unit receiving the boxes (the caller works there)' }) to_control_unit_id?: string;
  @Field(() => String, { nullable: true, description: "Default: the caller; else a member of the unit's organization" }) operator_user_id?: string;
  @Field(() => String, { nullable: true, description: 'A SENT tags egress addressed to to_control_unit_id' }) tags_egress_id?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => String, { nullable: true }) str_label?: string;
  @Field(() => [TagsIngressCreateBoxInput], { nullable: true, description: `Supplier boxes, at most ${MAX_BOXES}` }) tags_boxes?: TagsIngressCreateBoxInput[];
  @Field(() => String, { nullable: true, description: 'One supplier range, split into boxes of int_box_size' }) str_begin?: string;
  @Field(() => String, { nullable: true }) str_finish?: string;
  @Field(() => Int, { nullable: true, description: 'Codes per box when a range is given (default: the whole range in one box)' }) int_box_size?: number;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}

@InputType('TagsIngressEvaluateBoxInput')
export class TagsIngressEvaluateBoxInput {
  @Field(() => String, { nullable: true, description: 'A box of the ingress' }) id?: string;
  @Field(() => String, { nullable: true, description: 'ACCEPTED or REJECTED' }) str_status?: string;
}

@InputType('TagsIngressEvaluateInput', { description: 'Tags Ingress Evaluate: every box of the ingress, once' })
export class TagsIngressEvaluateInput {
  @Field(() => [TagsIngressEvaluateBoxInput], { nullable: true }) tags_boxes?: TagsIngressEvaluateBoxInput[];
}
