import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

export type InviteRequestStatus = 'PENDING' | 'APPROVED' | 'DENIED' | 'CANCELLED';

/** A user's request to be invited to a control unit: PENDING → APPROVED (an accepted invite) | DENIED | CANCELLED. */
@Entity({ tableName: 'invite_request' })
export class InviteRequest extends BaseEntity {
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  /** The unit's organization, whose owners and managers decide. */
  @Property({ type: 'uuid' })
  organization_id!: string;

  /** The requester. */
  @Property({ type: 'uuid' })
  user_id!: string;

  @Property({ type: 'uuid', nullable: true })
  invite_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  decided_by_user_id: string | null = null;

  @Property({ type: 'text' })
  str_movimentation_type!: string;

  @Property({ type: 'text' })
  str_type!: string;

  @Property({ type: 'text', nullable: true })
  str_message: string | null = null;

  @Property({ type: 'text' })
  str_status: InviteRequestStatus = 'PENDING';

  @Property({ type: 'timestamptz', nullable: true })
  ts_decided_at: Date | null = null;
}
