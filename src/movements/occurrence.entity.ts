import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { OccurrenceStatus, OccurrenceType } from './occurrence.rules.js';

/** An incident on an animal, tag, movement or unit, raised by people or by the movement rules (DOMAIN.md, "Occurrences"). */
@Entity({ tableName: 'occurrence' })
export class Occurrence extends BaseEntity {
  @Property({ type: 'text' })
  str_type!: OccurrenceType;

  @Property({ type: 'text' })
  str_status: Opt<OccurrenceStatus> = 'OPEN';

  /** Where it happened: who sees it. */
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  @Property({ type: 'uuid', nullable: true })
  animal_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  tag_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  animals_egress_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  animals_ingress_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  gta_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  travel_id: string | null = null;

  /** Null when a rule raised it. */
  @Property({ type: 'uuid', nullable: true })
  reporter_user_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  resolver_user_id: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_resolution: string | null = null;

  @Property({ type: 'timestamptz' })
  ts_occurred_at: Opt<Date> = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  ts_resolved_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
