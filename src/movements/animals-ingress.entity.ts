import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { IngressStatus } from './movement.rules.js';

/** Animals arriving at a control unit under one or more GTAs, reconciled on finish (DOMAIN.md, "Animal movements"). */
@Entity({ tableName: 'animals_ingress' })
export class AnimalsIngress extends BaseEntity {
  @Property({ type: 'uuid' })
  to_control_unit_id!: string;

  @Property({ type: 'uuid', nullable: true })
  operator_user_id: string | null = null;

  @Property({ type: 'text' })
  str_status: Opt<IngressStatus> = 'OPEN';

  @Property({ type: 'boolean' })
  bl_move_with_tag_reading!: boolean;

  /** Reading off: the animals counted off the truck. */
  @Property({ type: 'integer', nullable: true })
  int_animal_count: number | null = null;

  /** Set on finish: the animals that became ACTIVE here. */
  @Property({ type: 'integer', nullable: true })
  int_received_count: number | null = null;

  @Property({ type: 'text', nullable: true })
  str_socioenvironmental_status: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_label: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_started_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_first_read: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_finished_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
