import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { AnimalStatus } from './animal.rules.js';

/** An identified bovine or buffalo. Its location is its last control unit; its establishment is that unit's. */
@Entity({ tableName: 'animal' })
export class Animal extends BaseEntity {
  @Property({ type: 'text' })
  str_species!: 'BOVINE' | 'BUBALINE';

  @Property({ type: 'text' })
  str_gender!: 'MALE' | 'FEMALE';

  @Property({ type: 'text' })
  str_status: Opt<AnimalStatus> = 'ACTIVE';

  @Property({ type: 'text' })
  str_socioenvironmental_status: Opt<string> = 'NOT_EVALUATED';

  @Property({ type: 'uuid', nullable: true })
  current_tag_id: string | null = null;

  @Property({ type: 'uuid' })
  last_control_unit_id!: string;

  @Property({ type: 'uuid', nullable: true })
  tags_identification_id: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_name: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  /** The electronic code RFID readers read. */
  @Property({ type: 'text', nullable: true })
  str_rod_code: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_extra_tag: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_born_date: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  int_age_months_at_identification: number | null = null;

  @Property({ type: 'integer', nullable: true })
  int_weight_kilos_at_identification: number | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_identified_at: Date | null = null;

  /** geo_identification is a GeoJSON Point built from these two (longitude first). */
  @Property({ type: 'double', nullable: true })
  num_longitude: number | null = null;

  @Property({ type: 'double', nullable: true })
  num_latitude: number | null = null;

  /** When it died, was slaughtered or exported. */
  @Property({ type: 'timestamptz', nullable: true })
  ts_ended_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
