import { ANIMAL_STATUSES } from '../animals/animal.rules.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { TAG_STATUSES } from '../tags/tag.rules.js';
import { homeCounts, type StatusCountRow } from './home.reader.js';

export interface Home {
  /** Null without an active organization: every count is then 0. */
  organization_id: string | null;
  int_animals: number;
  animals_by_status: StatusCountRow[];
  int_establishments: number;
  int_control_units: number;
  int_tags: number;
  tags_by_status: StatusCountRow[];
  int_open_animals_egresses: number;
  int_open_animals_ingresses: number;
  int_open_movements: number;
  int_pending_invites: number;
  int_open_occurrences: number;
  ts_counted_at: Date;
}

/** Every status of the list, in its order, 0 where none: a client draws the same chart whatever exists. */
function byStatus(statuses: readonly string[], rows: StatusCountRow[]): StatusCountRow[] {
  const found = new Map(rows.map((r) => [r.str_status, r.int_count]));
  return statuses.map((s) => ({ str_status: s, int_count: found.get(s) ?? 0 }));
}

const sum = (rows: StatusCountRow[]) => rows.reduce((n, r) => n + r.int_count, 0);

/** GET /api/home: the active organization's counts, whatever its role there (viewers included). */
export class HomeService {
  async read(db: Db, actor: Actor): Promise<Home> {
    const c = await homeCounts(db, actor.organizationId);
    const animals = byStatus(ANIMAL_STATUSES, c.animals_by_status);
    const tags = byStatus(TAG_STATUSES, c.tags_by_status);
    return {
      organization_id: actor.organizationId,
      int_animals: sum(animals),
      animals_by_status: animals,
      int_establishments: c.int_establishments,
      int_control_units: c.int_control_units,
      int_tags: sum(tags),
      tags_by_status: tags,
      int_open_animals_egresses: c.int_open_animals_egresses,
      int_open_animals_ingresses: c.int_open_animals_ingresses,
      int_open_movements: c.int_open_animals_egresses + c.int_open_animals_ingresses,
      int_pending_invites: c.int_pending_invites,
      int_open_occurrences: c.int_open_occurrences,
      ts_counted_at: c.ts_counted_at,
    };
  }
}
