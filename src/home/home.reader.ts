import type { Db } from '../db/sql.js';

export interface StatusCountRow {
  str_status: string;
  int_count: number;
}

/** What home.reader counts, as the statement returns it (status lists only where some exist). */
export interface HomeCountsRow {
  int_establishments: number;
  int_control_units: number;
  animals_by_status: StatusCountRow[];
  tags_by_status: StatusCountRow[];
  int_open_animals_egresses: number;
  int_open_animals_ingresses: number;
  int_pending_invites: number;
  int_open_occurrences: number;
  ts_counted_at: Date;
}

/**
 * The counts of one organization (DOMAIN.md, "Singletons": Home) in one statement: its
 * establishments, their units, and what stands at those units (animals and tags by status, open
 * egresses from and ingresses to them, open occurrences at them), and its pending invites. The
 * scope is the organization in the WHERE of every count; a null organization counts nothing.
 * An invite is pending as invite.rules.ts derives it: neither revoked nor accepted nor expired.
 */
export async function homeCounts(db: Db, organizationId: string | null): Promise<HomeCountsRow> {
  const [row] = await db.rows<HomeCountsRow>({
    sql: `with org_units as (
             select cu.id from control_unit cu join establishment e on e.id = cu.establishment_id where e.organization_id = ?::uuid)
          select (select count(*)::int from establishment e where e.organization_id = ?::uuid) as int_establishments,
                 (select count(*)::int from org_units) as int_control_units,
                 (select coalesce(jsonb_agg(jsonb_build_object('str_status', x.s, 'int_count', x.n)), '[]')
                    from (select a.str_status as s, count(*)::int as n from animal a where a.last_control_unit_id in (select id from org_units) group by a.str_status) x) as animals_by_status,
                 (select coalesce(jsonb_agg(jsonb_build_object('str_status', x.s, 'int_count', x.n)), '[]')
                    from (select t.str_status as s, count(*)::int as n from tag_with_place t where t.last_control_unit_id in (select id from org_units) group by t.str_status) x) as tags_by_status,
                 (select count(*)::int from animals_egress ae where ae.str_status = 'OPEN' and ae.from_control_unit_id in (select id from org_units)) as int_open_animals_egresses,
                 (select count(*)::int from animals_ingress ai where ai.str_status = 'OPEN' and ai.to_control_unit_id in (select id from org_units)) as int_open_animals_ingresses,
                 (select count(*)::int from invite i
                   where i.organization_id = ?::uuid and not i.bl_accepted and i.ts_revoked_at is null and (i.ts_expires_at is null or i.ts_expires_at > now())) as int_pending_invites,
                 (select count(*)::int from occurrence o where o.str_status = 'OPEN' and o.control_unit_id in (select id from org_units)) as int_open_occurrences,
                 now() as ts_counted_at`,
    params: [organizationId, organizationId, organizationId],
  });
  return row!;
}
