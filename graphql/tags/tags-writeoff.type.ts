import type { GraphQLResolveInfo } from 'graphql';
import { Ctx, Field, FieldResolver, Info, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { includeOf, type Needs } from '../lookahead.js';
import { User } from '../identity/user.type.js';
import { ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { WriteoffReasonEnum } from './enums.js';
import { TAG_NEEDS, Tag } from './tag.type.js';
import { tagsLoaders } from './tags.loaders.js';
import { UNIT_OPERATION_NEEDS, unitOperationFields } from './unit-operation.fields.js';
import type { Tag as TagRow } from '../../src/tags/tag.entity.js';
import type { TagsWriteoff as TagsWriteoffRow } from '../../src/tags/tags-writeoff.entity.js';
import { WRITEOFF_REASONS } from '../../src/tags/tag.rules.js';
import { MAX_TAGS_PER_OPERATION } from '../../src/tags/tags-writeoff.rules.js';

@ObjectType('TagsWriteoff', { description: 'Tags of a unit taken out of service for good (WRITTEN_OFF). Tags Writeoff and Tags Writeoff Partial Data are selections of it' })
export class TagsWriteoff {
  @Field(() => UUID) id!: string;
  @Field(() => WriteoffReasonEnum) str_reason!: string;
  @Field(() => String, { nullable: true, description: 'Required when str_reason is OTHER' }) str_reason_description!: string | null;
  @Field(() => UUID, { nullable: true }) control_unit_id!: string | null;
  @Field(() => ControlUnit) control_unit!: ControlUnit;
  @Field(() => String, { nullable: true }) str_control_unit_name!: string | null;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => User, { nullable: true, description: 'Null only when that user was removed' }) operator_user!: User | null;
  @Field(() => String, { nullable: true }) str_operator_user_name!: string | null;
  @Field(() => [Tag], { description: 'The tags written off, by code (their str_status is WRITTEN_OFF from then on)' }) tags!: Tag[];
  @Field(() => DateTime, { nullable: true, description: "The device's clock at creation, as sent" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const TAGS_WRITEOFF_NEEDS: Needs = UNIT_OPERATION_NEEDS;

@Resolver(() => TagsWriteoff)
export class TagsWriteoffFieldsResolver extends unitOperationFields(TagsWriteoff) {
  @FieldResolver(() => [Tag])
  tags(@Root() w: TagsWriteoffRow, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagRow[]> {
    return tagsLoaders(ctx).tagsOfWriteoff(includeOf(info, TAG_NEEDS)).load(w.id);
  }
}

@ObjectType('TagsWriteoffPage')
export class TagsWriteoffPage {
  @Field(() => [TagsWriteoff]) data!: TagsWriteoff[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('TagsWriteoffTagInput', { description: 'A tag of the unit to write off: id or str_code, not both' })
export class TagsWriteoffTagInput {
  @Field(() => String, { nullable: true }) id?: string;
  @Field(() => String, { nullable: true, description: '15 digits' }) str_code?: string;
}

@InputType('TagsWriteoffCreateInput', {
  description:
    'Tags Writeoff Create. Unused tags (AVAILABLE, RESERVED) go for DAMAGED, DEFECTIVE, LOST_UNUSED or OTHER; APPLIED tags only for ANIMAL_DEATH, ANIMAL_SLAUGHTER or ANIMAL_EXPORT, which end their ACTIVE animals (a lost or damaged applied tag is replaced instead)',
})
export class TagsWriteoffCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated uuid: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: a unit of the active organization' }) control_unit_id?: string;
  @Field(() => String, { nullable: true, description: "Default: the caller; else a member of the unit's organization" }) operator_user_id?: string;
  @Field(() => String, { nullable: true, description: `Required: ${WRITEOFF_REASONS.join(', ')}` }) str_reason?: string;
  @Field(() => String, { nullable: true, description: 'Required when str_reason is OTHER' }) str_reason_description?: string;
  @Field(() => [TagsWriteoffTagInput], { nullable: true, description: `Required: 1 to ${MAX_TAGS_PER_OPERATION} tags, all at control_unit_id, all or nothing` }) tags?: TagsWriteoffTagInput[];
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given, never used for order" }) ts_unsafe_client_created_at?: Date;
}
