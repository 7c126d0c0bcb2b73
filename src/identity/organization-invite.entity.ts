import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { Role } from './membership.entity.js';

export type OrganizationInviteStatus = 'PENDING' | 'ACCEPTED' | 'DECLINED';

/**
 * A person invited to an organization (POST /api/users): PENDING → ACCEPTED (a membership) |
 * DECLINED. An account it created joins on confirming its registration; an account that existed
 * accepts or declines with the token its mail carries.
 */
@Entity({ tableName: 'organization_invite' })
export class OrganizationInvite extends BaseEntity {
  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'uuid' })
  user_id!: string;

  @Property({ type: 'uuid', nullable: true })
  invited_by_user_id: string | null = null;

  @Property({ type: 'text' })
  str_role!: Role;

  @Property({ type: 'text' })
  str_status: Opt<OrganizationInviteStatus> = 'PENDING';

  @Property({ type: 'boolean' })
  bl_joins_on_confirmation!: boolean;

  @Property({ type: 'text', nullable: true, hidden: true })
  token_hash: string | null = null;

  @Property({ type: 'timestamptz' })
  ts_expires_at!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  ts_decided_at: Date | null = null;
}
