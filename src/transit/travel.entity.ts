import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { TravelStatus } from './travel.rules.js';

/** A truck trip carrying one or more egresses (DOMAIN.md, "Animal movements" → Travel). Its embarks and stops are rows of their own. */
@Entity({ tableName: 'travel' })
export class Travel extends BaseEntity {
  @Property({ type: 'uuid' })
  vehicle_id!: string;

  @Property({ type: 'uuid' })
  transporter_user_id!: string;

  /** Who receives the animals, as written on the documents: a name, not a user. */
  @Property({ type: 'text', nullable: true })
  str_consignee_name: string | null = null;

  @Property({ type: 'uuid' })
  from_control_unit_id!: string;

  @Property({ type: 'uuid' })
  to_control_unit_id!: string;

  @Property({ type: 'text' })
  str_status: Opt<TravelStatus> = 'PLANNED';

  @Property({ type: 'timestamptz', nullable: true })
  ts_start_time: Date | null = null;

  @Property({ type: 'double', nullable: true })
  num_from_longitude: number | null = null;

  @Property({ type: 'double', nullable: true })
  num_from_latitude: number | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_end_time: Date | null = null;

  @Property({ type: 'double', nullable: true })
  num_to_longitude: number | null = null;

  @Property({ type: 'double', nullable: true })
  num_to_latitude: number | null = null;

  /** Minutes from start to end, set on finish. */
  @Property({ type: 'integer', nullable: true })
  int_duration: number | null = null;

  /** When TRANSIT_TIME_EXCEEDED was raised for this trip (at most once). */
  @Property({ type: 'timestamptz', nullable: true })
  ts_transit_time_exceeded_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
