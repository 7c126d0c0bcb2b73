import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { EgressStatus } from './movement.rules.js';

/** Animals leaving a control unit, read at the chute, dispatched under a GTA (DOMAIN.md, "Animal movements"). */
@Entity({ tableName: 'animals_egress' })
export class AnimalsEgress extends BaseEntity {
  @Property({ type: 'uuid' })
  from_control_unit_id!: string;

  @Property({ type: 'uuid', nullable: true })
  to_control_unit_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  gta_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  operator_user_id: string | null = null;

  @Property({ type: 'text' })
  str_status: Opt<EgressStatus> = 'OPEN';

  @Property({ type: 'boolean' })
  bl_move_with_tag_reading!: boolean;

  @Property({ type: 'integer' })
  int_tag_count: Opt<number> = 0;

  @Property({ type: 'text', nullable: true })
  str_socioenvironmental_status: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_label: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_license_plate: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_last_read: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_finished_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
