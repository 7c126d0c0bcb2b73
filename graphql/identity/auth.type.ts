import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { UUID } from '../shared/scalars.js';
import { User } from './user.type.js';

@ObjectType('TokenPair')
export class TokenPair {
  @Field(() => String) str_access_token!: string;
  @Field(() => String) str_refresh_token!: string;
  @Field(() => String) str_token_type!: string;
  @Field(() => Int) int_expires_in!: number;
  @Field(() => User) user!: User;
}

@InputType('LoginInput')
export class LoginInput {
  @Field(() => String, { nullable: true }) str_email?: string;
  @Field(() => String, { nullable: true, description: 'CPF or CNPJ' }) str_document?: string;
  @Field(() => String, { nullable: true }) str_password?: string;
}

@InputType('RefreshInput')
export class RefreshInput {
  @Field(() => String, { nullable: true }) refresh_token?: string;
}

@InputType('ChangeOrgInput')
export class ChangeOrgInput {
  @Field(() => UUID, { nullable: true }) organization_id?: string;
}

@InputType('RecoveryRequestInput')
export class RecoveryRequestInput {
  @Field(() => String, { nullable: true }) str_email?: string;
}

@InputType('TokenPasswordInput')
export class TokenPasswordInput {
  @Field(() => String, { nullable: true }) str_token?: string;
  @Field(() => String, { nullable: true }) str_password?: string;
}
