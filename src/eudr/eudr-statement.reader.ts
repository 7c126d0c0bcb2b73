import type { Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';

export const eudrStatementSource: Source = { table: 'eudr_statement', alias: 'es', relations: {} };

/** A submitted statement as its animals and GTA show it: what the next operator in the chain must keep. */
export interface EudrStatementReferenceRow {
  /** The animal or GTA it is shown on. */
  key: string;
  statement_id: string;
  str_reference_number: string;
  str_verification_number: string | null;
  str_dds_identifier: string | null;
  ts_submitted_at: Date | null;
}

const COLUMNS = 'es.id as statement_id, es.str_reference_number, es.str_verification_number, es.str_dds_identifier, es.ts_submitted_at';

/** The submitted statements of these animals, oldest first. Whoever may read the animal sees them: they travel with the cattle. */
export function statementsOfAnimals(db: Db, animalIds: readonly string[]): Promise<EudrStatementReferenceRow[]> {
  return db.rows({
    sql: `select sa.animal_id as key, ${COLUMNS} from eudr_statement_animal sa join eudr_statement es on es.id = sa.statement_id
           where sa.animal_id = any(?::uuid[]) and es.str_reference_number is not null order by es.ts_submitted_at, es.id`,
    params: [animalIds],
  });
}

/** The submitted statements whose lot was given by these GTAs, oldest first. */
export function statementsOfGtas(db: Db, gtaIds: readonly string[]): Promise<EudrStatementReferenceRow[]> {
  return db.rows({
    sql: `select es.gta_id as key, ${COLUMNS} from eudr_statement es
           where es.gta_id = any(?::uuid[]) and es.str_reference_number is not null order by es.ts_submitted_at, es.id`,
    params: [gtaIds],
  });
}
