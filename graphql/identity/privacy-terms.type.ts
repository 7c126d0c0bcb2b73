import { Field, InputType, ObjectType } from 'type-graphql';
import { DateTime, UUID } from '../shared/scalars.js';

@ObjectType('PrivacyAndTerms', { description: 'The current privacy policy and terms of use (the latest published) and the caller’s acceptance' })
export class PrivacyAndTerms {
  @Field(() => UUID) id!: string;
  @Field(() => String) str_version!: string;
  @Field(() => String) str_text!: string;
  @Field(() => DateTime) ts_published_at!: Date;
  @Field(() => Boolean, { nullable: true, description: 'Whether the caller accepted this version; null without a token' }) bl_accepted!: boolean | null;
  @Field(() => DateTime, { nullable: true, description: 'When the caller last accepted terms; null without a token' }) ts_terms_accepted_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@InputType('PrivacyAndTermsInput', { description: 'Privacy And Terms Publish: a new current version' })
export class PrivacyAndTermsInput {
  @Field(() => String, { nullable: true, description: 'Client-generated uuid: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required, unique, at most 64 characters' }) str_version?: string;
  @Field(() => String, { nullable: true, description: 'Required' }) str_text?: string;
}

@InputType('PrivacyAndTermsAcceptInput', { description: 'Privacy And Terms Accept' })
export class PrivacyAndTermsAcceptInput {
  @Field(() => String, { nullable: true, description: 'The version the user read: refused when it is no longer the current one' }) str_version?: string;
}
