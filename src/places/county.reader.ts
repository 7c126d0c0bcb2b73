import type { Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';

export const countySource: Source = { table: 'county', alias: 'c', columnNames: ['id', 'str_ibge_code', 'str_name', 'str_federative_unit', 'ts_created_at', 'ts_updated_at'], relations: {} };

/** The UF (two letters) of a county, or null when there is none. */
export async function federativeUnitOf(db: Db, countyId: string | null): Promise<string | null> {
  if (!countyId) return null;
  const rows = await db.rows<{ str_federative_unit: string }>({ sql: 'select c.str_federative_unit from county c where c.id = ?', params: [countyId] });
  return rows[0]?.str_federative_unit ?? null;
}
