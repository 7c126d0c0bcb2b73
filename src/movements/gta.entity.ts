import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { StoredGtaStatus } from './gta.rules.js';

/** Guia de Trânsito Animal: the state's permit for a movement between two control units (DOMAIN.md, "Animal movements"). */
@Entity({ tableName: 'gta' })
export class Gta extends BaseEntity {
  /** The origin establishment's organization (null while a GTA the state notified has no origin yet). */
  @Property({ type: 'uuid', nullable: true })
  organization_id: string | null = null;

  @Property({ type: 'text' })
  str_code!: string;

  @Property({ type: 'integer', nullable: true })
  int_animal_quantity: number | null = null;

  @Property({ type: 'text' })
  str_federative_unit!: string;

  @Property({ type: 'text', nullable: true })
  str_series: string | null = null;

  @Property({ type: 'text' })
  str_status: Opt<StoredGtaStatus> = 'ISSUED';

  @Property({ type: 'text', nullable: true })
  str_purpose: string | null = null;

  @Property({ type: 'text' })
  str_species: Opt<string> = 'BOVINE';

  /** The state's id_gta. */
  @Property({ type: 'text', nullable: true })
  str_external_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  from_control_unit_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  to_control_unit_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  from_establishment_id: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  to_establishment_id: string | null = null;

  @Property({ type: 'timestamptz' })
  ts_issued_at!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  ts_valid_until: Date | null = null;

  @Property({ type: 'uuid', nullable: true })
  responsible_user_id: string | null = null;

  /** Who registered it (a member of the origin, an authority, or the state's integration). */
  @Property({ type: 'uuid', nullable: true })
  issuer_user_id: string | null = null;
}
