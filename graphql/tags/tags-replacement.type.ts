import type { GraphQLResolveInfo } from 'graphql';
import { Ctx, Field, FieldResolver, Info, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import { includeOf, type Needs } from '../lookahead.js';
import { User } from '../identity/user.type.js';
import { ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { ReplacementReasonEnum } from './enums.js';
import { TAG_NEEDS, Tag } from './tag.type.js';
import { tagsLoaders } from './tags.loaders.js';
import { UNIT_OPERATION_NEEDS, unitOperationFields } from './unit-operation.fields.js';
import type { ReplacementItem } from '../../src/tags/tag-operations.reader.js';
import type { Tag as TagRow } from '../../src/tags/tag.entity.js';
import type { TagsReplacement as TagsReplacementRow } from '../../src/tags/tags-replacement.entity.js';
import { REPLACEMENT_REASONS } from '../../src/tags/tag.rules.js';
import { MAX_TAGS_PER_OPERATION } from '../../src/tags/tags-writeoff.rules.js';

@ObjectType('TagsReplacementTag', { description: 'One animal whose applied tag was replaced: the old tag (REPLACED) and the new one' })
export class TagsReplacementTag {
  @Field(() => UUID) animal_id!: string;
  @Field(() => UUID) old_tag_id!: string;
  @Field(() => Tag) old_tag!: Tag;
  @Field(() => UUID) new_tag_id!: string;
  @Field(() => Tag) new_tag!: Tag;
  @Field(() => ReplacementReasonEnum) str_reason!: string;
}

@ObjectType('TagsReplacement', { description: 'Applied tags of a unit replaced by available or reserved ones of the same unit; each animal keeps its id and history' })
export class TagsReplacement {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => ControlUnit) control_unit!: ControlUnit;
  @Field(() => String, { nullable: true }) str_control_unit_name!: string | null;
  @Field(() => String, { nullable: true }) str_establishment_name!: string | null;
  @Field(() => UUID, { nullable: true }) operator_user_id!: string | null;
  @Field(() => User, { nullable: true, description: 'Null only when that user was removed' }) operator_user!: User | null;
  @Field(() => String, { nullable: true }) str_operator_user_name!: string | null;
  @Field(() => String, { nullable: true }) str_description!: string | null;
  @Field(() => String, { nullable: true }) str_label!: string | null;
  @Field(() => [TagsReplacementTag], { description: 'By old tag code' }) tags!: TagsReplacementTag[];
  @Field(() => DateTime, { nullable: true, description: "The device's clock at creation, as sent" }) ts_unsafe_client_created_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

export const TAGS_REPLACEMENT_NEEDS: Needs = UNIT_OPERATION_NEEDS;

/** An item's old and new tags are joined with the items when the query selects them. */
const TAGS_REPLACEMENT_TAG_NEEDS: Needs = {
  old_tag: { path: ['old_tag'], next: () => TAG_NEEDS },
  new_tag: { path: ['new_tag'], next: () => TAG_NEEDS },
};

const tagById = (ctx: Context, id: string): Loaded<TagRow | null> => ctx.loaders.tagById.load(id);

@Resolver(() => TagsReplacementTag)
export class TagsReplacementTagFieldsResolver {
  @FieldResolver(() => Tag)
  old_tag(@Root() item: ReplacementItem, @Ctx() ctx: Context): Loaded<TagRow | null> {
    return tagById(ctx, item.old_tag_id);
  }

  @FieldResolver(() => Tag)
  new_tag(@Root() item: ReplacementItem, @Ctx() ctx: Context): Loaded<TagRow | null> {
    return tagById(ctx, item.new_tag_id);
  }
}

@Resolver(() => TagsReplacement)
export class TagsReplacementFieldsResolver extends unitOperationFields(TagsReplacement) {
  @FieldResolver(() => [TagsReplacementTag])
  tags(@Root() r: TagsReplacementRow, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<ReplacementItem[]> {
    return tagsLoaders(ctx).itemsOfReplacement(includeOf(info, TAGS_REPLACEMENT_TAG_NEEDS)).load(r.id);
  }
}

@ObjectType('TagsReplacementPage')
export class TagsReplacementPage {
  @Field(() => [TagsReplacement]) data!: TagsReplacement[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('TagsReplacementTagInput', { description: 'One replacement: the applied tag (tag_id or str_tag_code) and the tag that takes its place (new_tag_id or str_new_tag_code), both at the unit' })
export class TagsReplacementTagInput {
  @Field(() => String, { nullable: true, description: 'The APPLIED tag (its animal ACTIVE at the unit)' }) tag_id?: string;
  @Field(() => String, { nullable: true }) str_tag_code?: string;
  @Field(() => String, { nullable: true, description: 'An AVAILABLE or RESERVED tag of the unit' }) new_tag_id?: string;
  @Field(() => String, { nullable: true }) str_new_tag_code?: string;
  @Field(() => String, { nullable: true, description: `Required: ${REPLACEMENT_REASONS.join(', ')}` }) str_reason?: string;
}

@InputType('TagsReplacementCreateInput', { description: 'Tags Replacement Create' })
export class TagsReplacementCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated uuid: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: a unit of the active organization' }) control_unit_id?: string;
  @Field(() => String, { nullable: true, description: "Default: the caller; else a member of the unit's organization" }) operator_user_id?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => String, { nullable: true }) str_label?: string;
  @Field(() => [TagsReplacementTagInput], { nullable: true, description: `Required: 1 to ${MAX_TAGS_PER_OPERATION} replacements, all or nothing` }) tags?: TagsReplacementTagInput[];
  @Field(() => DateTime, { nullable: true, description: "The device's clock, stored as given, never used for order" }) ts_unsafe_client_created_at?: Date;
}
