import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/**
 * A manager's invitation of a user to one control unit (DOMAIN.md, "Access between organizations").
 * Accepted is `bl_accepted`; revoked is `ts_revoked_at`; expired is derived on read from `ts_expires_at`.
 */
@Entity({ tableName: 'invite' })
export class Invite extends BaseEntity {
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  /** The author's organization: the one owning the unit. */
  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'uuid', nullable: true })
  author_user_id: string | null = null;

  @Property({ type: 'uuid' })
  user_id!: string;

  /** GTAs do not exist yet: a bare uuid without a foreign key. */
  @Property({ type: 'uuid', nullable: true })
  gta_id: string | null = null;

  @Property({ type: 'text' })
  str_movimentation_type!: string;

  @Property({ type: 'text' })
  str_type!: string;

  @Property({ type: 'boolean' })
  bl_restricted: boolean = false;

  @Property({ type: 'boolean' })
  bl_accepted: boolean = false;

  @Property({ type: 'timestamptz', nullable: true })
  ts_expires_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_accepted_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_revoked_at: Date | null = null;
}
