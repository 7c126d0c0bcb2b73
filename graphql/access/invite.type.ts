import { Ctx, Field, FieldResolver, InputType, ObjectType, Resolver, Root } from 'type-graphql';
import type { Context } from '../context.js';
import type { Loaded } from '../loaders.js';
import type { Needs } from '../lookahead.js';
import { USER_NEEDS, User } from '../identity/user.type.js';
import { GTA_NEEDS, Gta } from '../movements/gta.type.js';
import { CONTROL_UNIT_NEEDS, ControlUnit } from '../places/establishment.type.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { Invite as InviteRow } from '../../src/access/invite.entity.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { Gta as GtaRow } from '../../src/movements/gta.entity.js';
import type { ControlUnit as ControlUnitRow } from '../../src/places/control-unit.entity.js';
import { inviteStatus } from '../../src/access/invite.rules.js';

@ObjectType('Invite', { description: 'A user invited to a control unit (DOMAIN.md, "Access between organizations")' })
export class Invite {
  @Field(() => UUID) id!: string;
  @Field(() => Boolean) bl_accepted!: boolean;
  @Field(() => Boolean, { description: "Limited to the GTA's movement" }) bl_restricted!: boolean;
  @Field(() => UUID) control_unit_id!: string;
  @Field(() => ControlUnit, { nullable: true }) control_unit!: ControlUnit | null;
  @Field(() => UUID, { nullable: true }) gta_id!: string | null;
  @Field(() => Gta, { nullable: true, description: "The GTA of gta_id, when the caller or the invite's organization sees it" }) gta!: Gta | null;
  @Field(() => UUID) user_id!: string;
  @Field(() => User, { nullable: true }) user!: User | null;
  @Field(() => UUID) organization_id!: string;
  @Field(() => String, { nullable: true, description: 'INGRESS, EGRESS or BOTH' }) str_movimentation_type!: string | null;
  @Field(() => String, { nullable: true, description: 'OPERATOR or VIEWER' }) str_type!: string | null;
  @Field(() => String, { description: 'Derived on read: PENDING, ACCEPTED, REVOKED or EXPIRED' }) str_status!: string;
  @Field(() => DateTime, { nullable: true }) ts_expires_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

/** What each invite field reads through a relation (look-ahead joins them with the invite). */
export const INVITE_NEEDS: Needs = {
  control_unit: { path: ['control_unit'], next: () => CONTROL_UNIT_NEEDS },
  user: { path: ['user'], next: () => USER_NEEDS },
  gta: { path: ['gta'], next: () => GTA_NEEDS },
};

@Resolver(() => Invite)
export class InviteFieldsResolver {
  @FieldResolver(() => ControlUnit, { nullable: true })
  control_unit(@Root() i: InviteRow, @Ctx() ctx: Context): Loaded<ControlUnitRow | null> {
    return ctx.loaders.unrestrictedControlUnitById.load(i.control_unit_id);
  }

  @FieldResolver(() => User, { nullable: true })
  user(@Root() i: InviteRow, @Ctx() ctx: Context): Loaded<UserRow | null> {
    return ctx.loaders.userById.load(i.user_id);
  }

  @FieldResolver(() => Gta, { nullable: true })
  gta(@Root() i: InviteRow, @Ctx() ctx: Context): Loaded<GtaRow | null> {
    return i.gta_id ? ctx.loaders.gtaOfInvite.load(i.id) : null;
  }

  @FieldResolver(() => String)
  str_status(@Root() i: InviteRow): string {
    return inviteStatus(i);
  }
}

@ObjectType('InvitePage')
export class InvitePage {
  @Field(() => [Invite]) data!: Invite[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('InviteToUserInput')
export class InviteToUserInput {
  @Field(() => String, { nullable: true, description: 'Required' }) str_email?: string;
  @Field(() => String, { nullable: true, description: 'Required when no user has this e-mail' }) str_name?: string;
  @Field(() => String, { nullable: true, description: 'CPF or CNPJ; required when no user has this e-mail' }) str_document?: string;
}

@InputType('InviteCreateInput')
export class InviteCreateInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => UUID, { nullable: true, description: 'Required' }) control_unit_id?: string;
  @Field(() => UUID, { nullable: true, description: "Optional; must be the unit's establishment" }) establishment_id?: string;
  @Field(() => UUID, { nullable: true }) gta_id?: string;
  @Field(() => UUID, { nullable: true, description: 'The invitee, or to_user' }) user_id?: string;
  @Field(() => InviteToUserInput, { nullable: true, description: 'The invitee by e-mail: found, or registered and mailed' }) to_user?: InviteToUserInput;
  @Field(() => String, { nullable: true, description: 'Required: INGRESS, EGRESS or BOTH' }) str_movimentation_type?: string;
  @Field(() => String, { nullable: true, description: 'OPERATOR or VIEWER (default)' }) str_type?: string;
  @Field(() => Boolean, { nullable: true, description: 'Requires gta_id' }) bl_restricted?: boolean;
  @Field(() => String, { nullable: true, description: 'A date-time in the future' }) ts_expires_at?: string;
}

@InputType('InviteUpdateInput')
export class InviteUpdateInput {
  @Field(() => Boolean, { nullable: true, description: 'The invitee accepts (true only)' }) bl_accepted?: boolean;
  @Field(() => Boolean, { nullable: true }) bl_restricted?: boolean;
  @Field(() => UUID, { nullable: true }) gta_id?: string;
  @Field(() => UUID, { nullable: true }) user_id?: string;
  @Field(() => String, { nullable: true }) str_movimentation_type?: string;
  @Field(() => String, { nullable: true }) str_type?: string;
  @Field(() => String, { nullable: true }) ts_expires_at?: string;
}
