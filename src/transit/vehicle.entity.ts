import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/** A truck or trailer of an organization. Plates are stored in the Mercosul form (vehicle.rules.ts). */
@Entity({ tableName: 'vehicle' })
export class Vehicle extends BaseEntity {
  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'uuid', nullable: true })
  owner_id: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_brand: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_color: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_fuel: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_last_registration: string | null = null;

  @Property({ type: 'text' })
  str_license_plate!: string;

  @Property({ type: 'text', nullable: true })
  str_model: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_renavam_number: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_trailer_plate: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_type: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_year_of_manufacture: string | null = null;

  @Property({ type: 'text', nullable: true })
  lt_path: string | null = null;

  /** The device's clock when it was created offline: stored as given, never used for order. */
  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
