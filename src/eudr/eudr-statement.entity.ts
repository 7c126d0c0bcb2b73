import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { EudrLotInput } from './eudr-lot.input.js';

/** An upstream statement this one references in TRACES (an earlier operator's, for the same cattle). */
export interface EudrStatementRef {
  str_reference_number: string;
  str_verification_number: string;
}

/** The lot as it was given, canonical (ids lower-cased, lists without repeats, times as ISO strings). */
export type StoredLot = { [K in keyof EudrLotInput]?: string | string[] };

/**
 * A lot's EUDR due diligence statement: the animals it held when it was made (eudr_statement_animal),
 * and what TRACES gave on submission (docs/decisions/eudr.md, "The statement").
 */
@Entity({ tableName: 'eudr_statement' })
export class EudrStatement extends BaseEntity {
  /** The organization that made it (the lot's holder); null when an administrator or authority without one did. */
  @Property({ type: 'uuid', nullable: true })
  organization_id: string | null = null;

  @Property({ type: 'uuid' })
  created_by_id!: string;

  @Property({ type: 'json' })
  lot!: StoredLot;

  /** The GTA when the lot was given by one: the GTA shows the statement. */
  @Property({ type: 'uuid', nullable: true })
  gta_id: string | null = null;

  @Property({ type: 'integer' })
  int_animals!: number;

  @Property({ type: 'text', nullable: true })
  str_reference_number: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_verification_number: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  str_dds_identifier: string | null = null;

  @Property({ type: 'json' })
  upstream_statements: EudrStatementRef[] = [];

  @Property({ type: 'timestamptz', nullable: true })
  ts_submitted_at: Date | null = null;
}
