import { Field, InputType, ObjectType } from 'type-graphql';
import { DateTime, UUID } from '../shared/scalars.js';

@ObjectType('UserFeatures', { description: 'The feature flags enabled for the caller: USER_FEATURES_DEFAULT, then its organization’s setting, then its own' })
export class UserFeatures {
  @Field(() => UUID) user_id!: string;
  @Field(() => UUID, { nullable: true, description: 'The active organization whose setting applies' }) organization_id!: string | null;
  @Field(() => [String], { description: 'Sorted' }) lst_features!: string[];
}

@ObjectType('FeatureSetting', { description: 'What one user or organization turns on and off on top of the level below it' })
export class FeatureSetting {
  @Field(() => UUID, { nullable: true }) user_id!: string | null;
  @Field(() => UUID, { nullable: true }) organization_id!: string | null;
  @Field(() => [String]) lst_enabled!: string[];
  @Field(() => [String]) lst_disabled!: string[];
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@InputType('FeatureSettingInput', { description: 'User Features Set: the whole setting (an absent list is empty); a flag is either enabled or disabled' })
export class FeatureSettingInput {
  @Field(() => [String], { nullable: true, description: 'Flags turned on (at most 100)' }) lst_enabled?: string[];
  @Field(() => [String], { nullable: true, description: 'Flags turned off even when a level below turns them on (at most 100)' }) lst_disabled?: string[];
}
