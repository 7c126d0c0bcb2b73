import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { TagStatus } from './tag.rules.js';

/** One eartag: an ISO 11784 code issued once, located at a control unit, applied to at most one animal for life. */
@Entity({ tableName: 'tag' })
export class Tag extends BaseEntity {
  @Property({ type: 'text' })
  str_code!: string;

  @Property({ type: 'text' })
  str_status!: TagStatus;

  @Property({ type: 'boolean' })
  bl_external_tag: boolean = false;

  @Property({ type: 'uuid', nullable: true })
  tags_box_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  last_control_unit_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  animal_id: string | null = null;

  /** Set while RESERVED only. */
  @Property({ type: 'uuid', nullable: true })
  tags_reservation_id: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_writeoff_reason: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_writeoff_at: Date | null = null;
}
