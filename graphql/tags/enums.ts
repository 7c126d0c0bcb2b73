import { registerEnumType } from 'type-graphql';
import { asEnum } from '../shared/enums.js';
import {
  REPLACEMENT_REASONS,
  TAG_STATUSES,
  TAGS_BOX_STATUSES,
  TAGS_EGRESS_STATUSES,
  TAGS_EGRESS_TYPES,
  TAGS_INGRESS_BOX_STATUSES,
  TAGS_INGRESS_STATUSES,
  TAGS_RESERVATION_STATUSES,
  WRITEOFF_REASONS,
} from '../../src/tags/tag.rules.js';
import { ANIMAL_GENDERS, ANIMAL_SPECIES, ANIMAL_STATUSES } from '../../src/animals/animal.rules.js';

/** A GraphQL enum's value map: each value names itself (only type-graphql reads it, so no per-key type is needed). */

export const TagStatusEnum = asEnum(TAG_STATUSES);
export const TagsBoxStatusEnum = asEnum(TAGS_BOX_STATUSES);
export const TagsIngressStatusEnum = asEnum(TAGS_INGRESS_STATUSES);
export const TagsIngressBoxStatusEnum = asEnum(TAGS_INGRESS_BOX_STATUSES);
export const TagsEgressTypeEnum = asEnum(TAGS_EGRESS_TYPES);
export const TagsEgressStatusEnum = asEnum(TAGS_EGRESS_STATUSES);
export const TagsReservationStatusEnum = asEnum(TAGS_RESERVATION_STATUSES);
export const ReplacementReasonEnum = asEnum(REPLACEMENT_REASONS);
export const WriteoffReasonEnum = asEnum(WRITEOFF_REASONS);
export const AnimalSpeciesEnum = asEnum(ANIMAL_SPECIES);
export const AnimalGenderEnum = asEnum(ANIMAL_GENDERS);
export const AnimalStatusEnum = asEnum(ANIMAL_STATUSES);
registerEnumType(TagStatusEnum, { name: 'TagStatus' });
registerEnumType(TagsBoxStatusEnum, { name: 'TagsBoxStatus' });
registerEnumType(TagsIngressStatusEnum, { name: 'TagsIngressStatus' });
registerEnumType(TagsIngressBoxStatusEnum, { name: 'TagsIngressBoxStatus' });
registerEnumType(TagsEgressTypeEnum, { name: 'TagsEgressType' });
registerEnumType(TagsEgressStatusEnum, { name: 'TagsEgressStatus' });
registerEnumType(TagsReservationStatusEnum, { name: 'TagsReservationStatus' });
registerEnumType(ReplacementReasonEnum, { name: 'TagsReplacementReason' });
registerEnumType(WriteoffReasonEnum, { name: 'TagsWriteoffReason' });
registerEnumType(AnimalSpeciesEnum, { name: 'AnimalSpecies' });
registerEnumType(AnimalGenderEnum, { name: 'AnimalGender' });
registerEnumType(AnimalStatusEnum, { name: 'AnimalStatus' });
