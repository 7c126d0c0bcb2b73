import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { DateTime, UUID } from '../shared/scalars.js';

@ObjectType('UserVerificationSent', { description: 'A 6-digit code went out; it lasts 10 minutes and takes 5 attempts' })
export class UserVerificationSent {
  @Field(() => UUID) user_id!: string;
  @Field(() => String, { description: 'EMAIL or SMS' }) str_channel!: string;
  @Field(() => String, { description: 'Where it went, masked' }) str_destination!: string;
  @Field(() => DateTime) ts_expires_at!: Date;
  @Field(() => Int) int_attempts_left!: number;
}

@ObjectType('UserVerification')
export class UserVerification {
  @Field(() => UUID) user_id!: string;
  @Field(() => Boolean) bl_verified!: boolean;
}

@InputType('UserVerificationSendInput', { description: 'User Verification: send a code to the caller' })
export class UserVerificationSendInput {
  @Field(() => String, { nullable: true, description: 'Required: EMAIL (the user’s str_email) or SMS (its str_phone)' }) str_channel?: string;
}

@InputType('UserVerificationVerifyCodeInput', { description: 'User Verification Verify Code (interface.md)' })
export class UserVerificationVerifyCodeInput {
  @Field(() => String, { nullable: true, description: 'Required: the 6 digits sent' }) str_verification_code?: string;
  @Field(() => String, { nullable: true, description: 'The caller (default); another user is refused' }) user_id?: string;
}
