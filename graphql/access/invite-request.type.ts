import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import { User } from '../identity/user.type.js';
import { ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { InviteRequest as InviteRequestEntity } from '../../src/access/invite-request.entity.js';

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

@Resolver(() => InviteRequest)
export class InviteRequestFieldsResolver {
  @FieldResolver(() => ControlUnit, { nullable: true })
  async control_unit(@Root() r: InviteRequestEntity, @Ctx() ctx: Context): Promise<ControlUnit | null> {
    return (await ctx.loaders.unrestrictedControlUnitById.load(r.control_unit_id)) as unknown as ControlUnit | null;
  }

  @FieldResolver(() => User, { nullable: true })
  async user(@Root() r: InviteRequestEntity, @Ctx() ctx: Context): Promise<User | null> {
    return (await ctx.loaders.userById.load(r.user_id)) as unknown as User | null;
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
