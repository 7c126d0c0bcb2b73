import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/**
 * An organization's grant of read access to its establishments or control units (DOMAIN.md,
 * "Access between organizations"). Its grantees live in `sharing_grantee`, its accesses in
 * `sharing_access`; its status is derived on read (sharing.rules.ts).
 */
@Entity({ tableName: 'sharing' })
export class Sharing extends BaseEntity {
  /** The granting organization: the one owning every establishment it names. */
  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'uuid', nullable: true })
  author_user_id: string | null = null;

  @Property({ type: 'text' })
  str_name!: string;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'boolean' })
  bl_deactivated_manually: boolean = false;

  @Property({ type: 'timestamptz', nullable: true })
  ts_scheduled_to: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_expires_at: Date | null = null;
}
