import type { Db, Query } from '../db/sql.js';
import type { Scope } from '../shared/scoped-query.js';
import type { SocioenvironmentalStatus } from '../places/establishment.rules.js';

/** A lot: the animals one due diligence statement covers (issue 22). */
export type EudrLot =
  | { kind: 'gta'; gtaId: string }
  | { kind: 'ingress'; ingressId: string }
  | { kind: 'animals'; animalIds: string[] }
  | { kind: 'tags'; tagCodes: string[] }
  | { kind: 'slaughter'; controlUnitId: string; from: Date; to: Date }
  /** The animals a recorded statement held when it was made. */
  | { kind: 'statement'; statementId: string };

/** An animal the operator has to find: its id and the code of the tag in its ear. */
export interface EudrAnimalRef {
  id: string;
  str_tag_code: string | null;
}

/** One establishment any animal of the lot stood at since identification, with what the statement and the verdict read. */
export interface EudrHoldingRow {
  id: string;
  str_name: string;
  str_car: string | null;
  num_longitude: number | null;
  num_latitude: number | null;
  dec_area: string | null;
  str_socioenvironmental_status: SocioenvironmentalStatus;
  str_responsible_user_name: string | null;
  ts_first: Date;
  ts_last: Date;
  int_animals: number;
  /** Animals whose first known stay is here and began on arrival from outside the record (an unknown code read at an ingress, an external tag): their earlier holdings are unknown. */
  int_unknown_origin: number;
  /** Those animals by id and the tag in their ear (the last not replaced nor written off; else the last), by tag code. */
  unknown_origin_animals: EudrAnimalRef[];
  /** The lot's size (the same on every row). */
  int_lot_animals: number;
}

/** The lot's animal ids, one per row (`animal_id`; a tag list may name an animal twice), for each kind of lot. */
export function lotSql(lot: EudrLot): { sql: string; params: unknown[] } {
  switch (lot.kind) {
    case 'gta':
      return { sql: 'select s.animal_id from animal_stay s where s.animals_egress_id = any(array(select eg.id from animals_egress eg where eg.gta_id = ?))', params: [lot.gtaId] };
    case 'ingress':
      return { sql: 'select s.animal_id from animal_stay s where s.animals_ingress_id = ?', params: [lot.ingressId] };
    case 'animals':
      return { sql: 'select a.id as animal_id from animal a where a.id = any(?::uuid[])', params: [lot.animalIds] };
    case 'tags':
      return { sql: 'select t.animal_id from tag t where t.str_code = any(?::text[]) and t.animal_id is not null', params: [lot.tagCodes] };
    case 'slaughter':
      // The animals whose life ended at the unit in the window (slaughtered there).
      return {
        sql: `select s.animal_id from animal_stay s join animal sa on sa.id = s.animal_id
               where s.control_unit_id = ? and tstzrange(s.ts_from, s.ts_to, '[]') && tstzrange(?::timestamptz, ?::timestamptz, '[)')
                 and s.ts_to >= ? and s.ts_to < ? and s.animals_egress_id is null and sa.str_status = 'SLAUGHTERED'`,
        params: [lot.controlUnitId, lot.from, lot.to, lot.from, lot.to],
      };
    case 'statement':
      return { sql: 'select sa.animal_id from eudr_statement_animal sa where sa.statement_id = ?', params: [lot.statementId] };
  }
}

/**
 * Every establishment the lot's animals stood at, one row each, in one statement whatever the
 * lot's size: the lot, the check that the caller holds every animal of it now (`holder`, on alias
 * `he`; the gate is evaluated once, before any stay is read), the stays, grouped. No row when the
 * lot is empty, is not all the caller's, or (`expected`, a list's distinct entries) names animals or
 * tags that do not exist: the service answers 404 for all three alike.
 */
export async function readLotHoldings(db: Db, lot: EudrLot, holder: Scope, expected: number | null, now: Date): Promise<EudrHoldingRow[]> {
  return db.rows<EudrHoldingRow>(lotHoldingsQuery(lot, holder, expected, now));
}

/** readLotHoldings's statement (bench:eudr explains it). */
export function lotHoldingsQuery(lot: EudrLot, holder: Scope, expected: number | null, now: Date): Query {
  const members = lotSql(lot);
  return {
    sql: `with member as materialized (${members.sql}),
          lot as materialized (select distinct m.animal_id from member m),
          held as materialized (
            select count(*)::int as n, (count(*) filter (where ${holder.sql}))::int as mine
              from lot l join animal la on la.id = l.animal_id join control_unit hu on hu.id = la.last_control_unit_id join establishment he on he.id = hu.establishment_id),
          external as (select distinct xt.animal_id from tag xt where xt.animal_id in (select l.animal_id from lot l) and xt.bl_external_tag),
          stay as (
            select s.animal_id, s.establishment_id, s.ts_from, coalesce(s.ts_to, ?::timestamptz) as ts_to, s.animals_ingress_id is not null as arrived,
                   row_number() over (partition by s.animal_id order by s.ts_from, s.id) = 1 as first
              from lot l join animal_stay s on s.animal_id = l.animal_id
             where (select h.n > 0 and h.mine = h.n and (?::int is null or (select count(*) from member) = ?::int) from held h)),
          per_animal as (
            select st.establishment_id, st.animal_id, min(st.ts_from) as ts_first, max(st.ts_to) as ts_last, bool_or(st.first and (st.arrived or x.animal_id is not null)) as unknown
              from stay st left join external x on x.animal_id = st.animal_id group by st.establishment_id, st.animal_id),
          per_establishment as (
            select pa.establishment_id, min(pa.ts_first) as ts_first, max(pa.ts_last) as ts_last, count(*)::int as int_animals, (count(*) filter (where pa.unknown))::int as int_unknown_origin
              from per_animal pa group by pa.establishment_id),
          unknown_origin as (
            select uk.establishment_id, json_agg(json_build_object('id', uk.animal_id, 'str_tag_code', uk.str_tag_code) order by uk.str_tag_code, uk.animal_id) as animals
              from (select pa.establishment_id, pa.animal_id,
                           (select t.str_code from tag t where t.animal_id = pa.animal_id order by t.str_status in ('REPLACED', 'WRITTEN_OFF'), t.ts_created_at desc, t.str_code limit 1) as str_tag_code
                      from per_animal pa where pa.unknown) uk
             group by uk.establishment_id)
          select e.id, e.str_name, e.str_car, e.num_longitude, e.num_latitude, e.dec_area, e.str_socioenvironmental_status, ru.str_name as str_responsible_user_name,
                 p.ts_first, p.ts_last, p.int_animals, p.int_unknown_origin,
                 coalesce(uo.animals, '[]'::json) as unknown_origin_animals, (select h.n from held h) as int_lot_animals
            from per_establishment p join establishment e on e.id = p.establishment_id left join "user" ru on ru.id = e.responsible_user_id
                 left join unknown_origin uo on uo.establishment_id = p.establishment_id
           order by p.ts_first, e.id`,
    params: [...members.params, ...holder.params, now, expected, expected],
  };
}
