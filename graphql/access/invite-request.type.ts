import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { InviteRequest as InviteRequestRow } from '../../src/access/invite-request.entity.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';

@ObjectType('InviteRequest', { description: "A user's request to be invited to a control unit" })
export class InviteRequest {
  @Field(() => UUID) id!: string;
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => ControlUnit, { nullable: true }) control_unit!: ControlUnit | null;
  @Field(() => UUID, { description: 'The requester' }) user_id!: string;
  @Field(() => User, { nullable: true }) user!: User | null;
  @Field(() => UUID, { description: "The unit's organization" }) organization_id!: string;
  @Field(() => UUID, { nullable: true, description: 'The accepted invite an approval created' }) invite_id!: string | null;
  @Field(() => String, { description: 'INGRESS, EGRESS or BOTH' }) str_movimentation_type!: string;
  @Field(() => String, { description: 'OPERATOR or VIEWER' }) str_type!: string;
  @Field(() => String, { nullable: true }) str_message!: string | null;
  @Field(() => String, { description: 'PENDING, APPROVED, DENIED or CANCELLED' }) str_status!: string;
  @Field(() => DateTime, { nullable: true }) ts_decided_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** What each request field reads through a relation (look-ahead joins them with the request). */
export const INVITE_REQUEST_NEEDS: Needs = {
  control_unit: { path: ['control_unit'], next: () => CONTROL_UNIT_NEEDS },
  user: { path: ['user'], next: () => USER_NEEDS },
};

@Resolver(() => InviteRequest)
export class InviteRequestFieldsResolver {
  @FieldResolver(() => ControlUnit, { nullable: true })
  control_unit(@Root() r: InviteRequestRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(r.control_unit_id);
  }

  @FieldResolver(() => User, { nullable: true })
  user(@Root() r: InviteRequestRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return ctx.loaders.userById.load(r.user_id);
  }
}

@ObjectType('InviteRequestPage')
export class InviteRequestPage {
  @Field(() => [InviteRequest]) data!: InviteRequest[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('InviteRequestCreateInput')
export class InviteRequestCreateInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => UUID, { nullable: true, description: 'Required' }) control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Required: INGRESS, EGRESS or BOTH' }) str_movimentation_type?: string;
  @Field(() => String, { nullable: true, description: 'Required: OPERATOR or VIEWER' }) str_type?: string;
  @Field(() => String, { nullable: true }) str_message?: string;
}
