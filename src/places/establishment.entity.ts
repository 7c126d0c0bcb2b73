import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { EstablishmentStatus, EstablishmentType, SocioenvironmentalStatus } from './establishment.rules.js';

/** A rural property, slaughterhouse, feedlot, auction or exhibition venue of an organization (DOMAIN.md, "Places"). */
@Entity({ tableName: 'establishment' })
export class Establishment extends BaseEntity {
  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'uuid', nullable: true })
  county_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  responsible_user_id: string | null = null;

  @Property({ type: 'text' })
  str_name!: string;

  @Property({ type: 'text' })
  str_type!: EstablishmentType;

  @Property({ type: 'text' })
  str_status: Opt<EstablishmentStatus> = 'ACTIVE';

  @Property({ type: 'text' })
  str_socioenvironmental_status: Opt<SocioenvironmentalStatus> = 'NOT_EVALUATED';

  @Property({ type: 'boolean' })
  bl_move_with_tag_reading: Opt<boolean> = true;

  @Property({ type: 'json', nullable: true })
  lst_invite_movimentation_types: string[] | null = null;

  /** geo_location is a GeoJSON Point built from these two (longitude first, as GeoJSON orders them). */
  @Property({ type: 'double', nullable: true })
  num_longitude: number | null = null;

  @Property({ type: 'double', nullable: true })
  num_latitude: number | null = null;

  /** Hectares; numeric in the database, so the driver hands back a string. */
  @Property({ type: 'decimal', precision: 14, scale: 4, nullable: true })
  dec_area: string | null = null;

  @Property({ type: 'decimal', precision: 14, scale: 4, nullable: true })
  dec_exploration_area: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_address: string | null = null;

  /** UF-IBGE7-32 hex, upper case, without dots. */
  @Property({ type: 'text', nullable: true })
  str_car: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_code: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_company_code: string | null = null;

  /** CPF or CNPJ without punctuation. */
  @Property({ type: 'text', nullable: true })
  str_document: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_email: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_neighborhood: string | null = null;

  /** CEP, 8 digits. */
  @Property({ type: 'text', nullable: true })
  str_zip_code: string | null = null;

  /** The device's clock when it was created offline: stored as given, never used for order. */
  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
