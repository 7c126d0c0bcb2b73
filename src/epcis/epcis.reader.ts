import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { movementPolicy } from '../movements/movement.policy.js';
import { tagsPolicy } from '../tags/tags.policy.js';
import type { Scope } from '../shared/scoped-query.js';
import type { BizStep, EventQuery } from './epcis.query.js';

/**
 * EPCIS as a read model over the domain's own records (never the event log): one EPCIS event per
 * operation that moved animals in custody, listing every animal it moved (docs/decisions/epcis.md).
 * Each kind is one branch of a UNION ALL; a page is one statement however many events or animals.
 */
export type EpcisKind = 'commissioning' | 'shipping' | 'receiving' | 'received_found' | 'replacing' | 'decommissioning' | 'died';

export const BIZ_STEP_OF: Record<EpcisKind, BizStep> = {
  commissioning: 'commissioning',
  shipping: 'shipping',
  receiving: 'receiving',
  received_found: 'receiving',
  replacing: 'replacing',
  decommissioning: 'decommissioning',
  died: 'decommissioning',
};

/** One EPCIS event as the reader finds it: plain values, mapped to JSON-LD by epcis.mapper.ts. */
export interface EpcisRow {
  kind: EpcisKind;
  op_id: string;
  ekey: string;
  event_us: string;
  event_time: Date;
  record_time: Date;
  reason: string | null;
  error_at: Date | null;
  read_point_code: string;
  biz_location_code: string | null;
  str_federative_unit: string | null;
  source_ids: string[];
  destination_ids: string[];
  gtas: { uf: string; series: string | null; code: string }[] | null;
  child_tag_code: string | null;
  old_tag_code: string | null;
  /** Lifetime codes (or ids) of the animals, in the order they were recorded. */
  epcs: string[] | null;
}

/** A branch: the kind's rows over its own tables, with how to find its operations by animal, tag or GTA. */
interface Branch {
  kind: EpcisKind;
  /** FROM … WHERE … for the kind's operations; `?`-free. */
  from: string;
  /** SELECT list: op_id, seq, event_time, record_time, unit_id, biz_unit_id, source_unit_id, dest_unit_id, gta_ids, reason, error_at, child_tag_id, old_tag_id. */
  columns: string;
  scope: (actor: Actor) => Scope;
  /** The operations listing any of the animals in `ids` (SQL of a uuid[]). */
  byAnimals: (ids: string) => string;
  /** Its operations under any GTA in `ids`; none when absent. */
  byGtas?: (ids: string) => string;
  /** Its operations naming any tag in `ids` as a child EPC; none when absent. */
  byTags?: (ids: string) => string;
  /** Its animals are the event's parentID (an AssociationEvent), not an epcList: MATCH_epc does not find it by them, MATCH_parentID does. */
  animalsAreParent?: true;
  /** The animals of the operation `op` (and `seq`, the replaced tag), selected as `animal_id`. */
  members: (op: string, seq: string) => string;
}

const cols = (c: Partial<Record<'seq' | 'biz_unit_id' | 'source_unit_id' | 'dest_unit_id' | 'gta_ids' | 'reason' | 'error_at' | 'child_tag_id' | 'old_tag_id', string>> & { op_id: string; event_time: string; record_time: string; unit_id: string }): string =>
  [
    `${c.op_id} as op_id`,
    `${c.seq ?? 'null::uuid'} as seq`,
    `${c.event_time} as event_time`,
    `${c.record_time} as record_time`,
    `${c.unit_id} as unit_id`,
    `${c.biz_unit_id ?? 'null::uuid'} as biz_unit_id`,
    `${c.source_unit_id ?? 'null::uuid'} as source_unit_id`,
    `${c.dest_unit_id ?? 'null::uuid'} as dest_unit_id`,
    `${c.gta_ids ?? 'null::uuid[]'} as gta_ids`,
    `${c.reason ?? 'null::text'} as reason`,
    `${c.error_at ?? 'null::timestamptz'} as error_at`,
    `${c.child_tag_id ?? 'null::uuid'} as child_tag_id`,
    `${c.old_tag_id ?? 'null::uuid'} as old_tag_id`,
  ].join(', ');

/** Animals a MISSING_ON_ARRIVAL of the ingress named: they arrived later, when it was resolved, not at the finish. */
const FOUND_LATER = (stay: string) =>
  `not exists (select 1 from occurrence fo where fo.animals_ingress_id = ${stay}.animals_ingress_id and fo.animal_id = ${stay}.animal_id and fo.str_type = 'MISSING_ON_ARRIVAL')`;

const BRANCHES: Branch[] = [
  {
    kind: 'commissioning',
    // Identified in the field, perhaps offline: the event is when the first animal was identified, not
    // when the server heard of it (read from the index animal_identification_time, not the animals).
    from: 'from tags_identification ti cross join lateral (select coalesce(min(ia.ts_identified_at), ti.ts_created_at) as at from animal ia where ia.tags_identification_id = ti.id) tim where true',
    columns: cols({
      op_id: 'ti.id',
      event_time: 'tim.at',
      record_time: 'ti.ts_created_at',
      unit_id: 'ti.control_unit_id',
      biz_unit_id: 'ti.control_unit_id',
    }),
    scope: (actor) => tagsPolicy.unitScope(actor, 'ti.control_unit_id', 'ti'),
    byAnimals: (ids) => `ti.id in (select m.tags_identification_id from animal m where m.id = any(${ids}))`,
    members: (op) => `select m.id as animal_id, m.ts_created_at as at from animal m where m.tags_identification_id = ${op}`,
  },
  {
    kind: 'shipping',
    // Dispatched: finished (a cancel after the finish keeps the event, declared an error).
    from: "from animals_egress ae where ae.ts_finished_at is not null and ae.str_status in ('FINISHED','RECEIVED','CANCELLED')",
    columns: cols({
      op_id: 'ae.id',
      event_time: 'ae.ts_finished_at',
      record_time: 'ae.ts_finished_at',
      unit_id: 'ae.from_control_unit_id',
      source_unit_id: 'ae.from_control_unit_id',
      dest_unit_id: 'ae.to_control_unit_id',
      gta_ids: 'array[ae.gta_id]',
      error_at: "case when ae.str_status = 'CANCELLED' then ae.ts_updated_at end",
    }),
    scope: (actor) => movementPolicy.egressScope(actor),
    byAnimals: (ids) => `ae.id in (select m.animals_egress_id from animals_egress_tag m where m.animal_id = any(${ids}))`,
    byGtas: (ids) => `ae.gta_id = any(${ids})`,
    members: (op) => `select m.animal_id, m.ts_created_at as at from animals_egress_tag m where m.animals_egress_id = ${op} and m.animal_id is not null`,
  },
  {
    kind: 'receiving',
    from: "from animals_ingress ai where ai.str_status in ('RECEIVED','RECEIVED_WITH_DIVERGENCE') and exists (select 1 from animal_stay es where es.animals_ingress_id = ai.id)",
    columns: cols({
      op_id: 'ai.id',
      event_time: 'ai.ts_finished_at',
      record_time: 'ai.ts_finished_at',
      unit_id: 'ai.to_control_unit_id',
      biz_unit_id: 'ai.to_control_unit_id',
      dest_unit_id: 'ai.to_control_unit_id',
      gta_ids: 'array(select ig.gta_id from animals_ingress_gta ig where ig.animals_ingress_id = ai.id order by ig.ts_created_at, ig.id)',
    }),
    scope: (actor) => movementPolicy.ingressScope(actor),
    byAnimals: (ids) => `ai.id in (select m.animals_ingress_id from animal_stay m where m.animal_id = any(${ids}) and ${FOUND_LATER('m')})`,
    byGtas: (ids) => `ai.id in (select ig.animals_ingress_id from animals_ingress_gta ig where ig.gta_id = any(${ids}))`,
    members: (op) => `select m.animal_id, m.ts_from as at from animal_stay m where m.animals_ingress_id = ${op} and ${FOUND_LATER('m')}`,
  },
  {
    kind: 'received_found',
    // A MISSING_ON_ARRIVAL resolved: the animal arrived then, as its stay says.
    from: "from occurrence ro where ro.str_type = 'MISSING_ON_ARRIVAL' and ro.str_status = 'RESOLVED' and ro.animal_id is not null and exists (select 1 from animal_stay rs where rs.animal_id = ro.animal_id and rs.animals_ingress_id = ro.animals_ingress_id)",
    columns: cols({
      op_id: 'ro.id',
      event_time: 'coalesce(ro.ts_resolved_at, ro.ts_updated_at)',
      record_time: 'coalesce(ro.ts_resolved_at, ro.ts_updated_at)',
      unit_id: 'ro.control_unit_id',
      biz_unit_id: 'ro.control_unit_id',
      dest_unit_id: 'ro.control_unit_id',
      gta_ids: 'array_remove(array[ro.gta_id], null)',
    }),
    scope: (actor) => controlUnitPolicy.unitIn(actor, 'ro.control_unit_id', 'ALL', { holder: 'ro' }),
    byAnimals: (ids) => `ro.animal_id = any(${ids})`,
    byGtas: (ids) => `ro.gta_id = any(${ids})`,
    members: (op) => `select m.animal_id, m.ts_created_at as at from occurrence m where m.id = ${op}`,
  },
  {
    kind: 'replacing',
    // One AssociationEvent per tag replaced: EPCIS names one parent per association.
    from: 'from tags_replacement_tag rx join tags_replacement rr on rr.id = rx.tags_replacement_id where true',
    columns: cols({
      op_id: 'rr.id',
      seq: 'rx.old_tag_id',
      event_time: 'rr.ts_created_at',
      record_time: 'rr.ts_created_at',
      unit_id: 'rr.control_unit_id',
      biz_unit_id: 'rr.control_unit_id',
      reason: 'rx.str_reason',
      child_tag_id: 'rx.new_tag_id',
      old_tag_id: 'rx.old_tag_id',
    }),
    scope: (actor) => tagsPolicy.unitScope(actor, 'rr.control_unit_id', 'rr'),
    animalsAreParent: true,
    byAnimals: (ids) => `rx.animal_id = any(${ids})`,
    byTags: (ids) => `rx.new_tag_id = any(${ids})`,
    members: (op, seq) => `select m.animal_id, null::timestamptz as at from tags_replacement_tag m where m.tags_replacement_id = ${op} and m.old_tag_id = ${seq}`,
  },
  {
    kind: 'decommissioning',
    from: "from tags_writeoff w where w.str_reason in ('ANIMAL_DEATH','ANIMAL_SLAUGHTER','ANIMAL_EXPORT')",
    columns: cols({ op_id: 'w.id', event_time: 'w.ts_created_at', record_time: 'w.ts_created_at', unit_id: 'w.control_unit_id', biz_unit_id: 'w.control_unit_id', reason: 'w.str_reason' }),
    scope: (actor) => tagsPolicy.unitScope(actor, 'w.control_unit_id', 'w'),
    byAnimals: (ids) => `w.id in (select m.tags_writeoff_id from tags_writeoff_tag m where m.animal_id = any(${ids}))`,
    members: (op) => `select m.animal_id, null::timestamptz as at from tags_writeoff_tag m where m.tags_writeoff_id = ${op} and m.animal_id is not null`,
  },
  {
    kind: 'died',
    // A death reported as an occurrence: the animal ended when it died.
    from: "from occurrence dob where dob.str_type = 'ANIMAL_DEATH' and dob.animal_id is not null",
    columns: cols({ op_id: 'dob.id', event_time: 'dob.ts_occurred_at', record_time: 'dob.ts_created_at', unit_id: 'dob.control_unit_id', biz_unit_id: 'dob.control_unit_id', reason: "'ANIMAL_DEATH'" }),
    scope: (actor) => controlUnitPolicy.unitIn(actor, 'dob.control_unit_id', 'ALL', { holder: 'dob' }),
    byAnimals: (ids) => `dob.animal_id = any(${ids})`,
    members: (op) => `select m.animal_id, m.ts_created_at as at from occurrence m where m.id = ${op}`,
  },
];

/** The animals an EPC parameter names (by lifetime code, any tag code of theirs, or id), and its tags: a CTE computed once. */
const MATCHED = (name: string) => `${name} as (select
    array(select t.animal_id from tag t where t.str_code = any(?::text[]) and t.animal_id is not null union select unnest(?::uuid[])) as animal_ids,
    array(select t.id from tag t where t.str_code = any(?::text[])) as tag_ids)`;
const GTAS = (name: string) => `${name} as (select array(select g.id from gta g join jsonb_to_recordset(?::jsonb) j(uf text, series text, code text)
    on g.str_federative_unit = j.uf and coalesce(g.str_series, '') = coalesce(j.series, '') and g.str_code = j.code) as ids)`;

/** The EPC parameters, each with the CTE it reads and what it matches in a branch (EPCIS 2.0 §8.2.7.1). */
const EPC_FILTERS = [
  // MATCH_epc: epcList and childEPCs, never the parentID.
  { field: 'epcs', cte: 'matched_epc', animals: (b: Branch) => !b.animalsAreParent, tags: true },
  { field: 'parentIds', cte: 'matched_parent', animals: (b: Branch) => b.animalsAreParent === true, tags: false },
  { field: 'anyEpcs', cte: 'matched_any', animals: () => true, tags: true },
] as const;

function epcCondition(b: Branch, cte: string, animals: boolean, tags: boolean): string {
  const either = [...(animals ? [b.byAnimals(`(select animal_ids from ${cte})::uuid[]`)] : []), ...(tags && b.byTags ? [b.byTags(`(select tag_ids from ${cte})::uuid[]`)] : [])];
  return either.length ? `(${either.join(' or ')})` : 'false';
}

/**
 * Whose events: every visible event that passes the query (`events`), or every event that lists
 * one animal the caller sees, each one's animals narrowed to that animal where the caller does not
 * see the operation itself (`animal`: the animal's history shows as much).
 */
export type EpcisSelection = { mode: 'events'; query: EventQuery } | { mode: 'animal'; animalId: string };

/** One page of events (or an animal's every event), oldest first: one statement. */
export async function readEpcisEvents(db: Db, actor: Actor, selection: EpcisSelection): Promise<EpcisRow[]> {
  const params: unknown[] = [];
  const ctes: string[] = [];
  const q = selection.mode === 'events' ? selection.query : null;
  if (q?.none) return [];
  for (const f of EPC_FILTERS) {
    const match = q?.[f.field];
    if (!match) continue;
    ctes.push(MATCHED(f.cte));
    params.push(match.animalCodes, match.animalIds, match.tagCodes);
  }
  q?.gtas?.forEach((list, i) => {
    ctes.push(GTAS(`wanted_gtas_${i}`));
    params.push(JSON.stringify(list));
  });
  const branches = BRANCHES.filter((b) => !q?.bizSteps || q.bizSteps.includes(BIZ_STEP_OF[b.kind]));
  const arms: string[] = [];
  for (const b of branches) {
    const scope = b.scope(actor);
    const conditions: string[] = [];
    let visible: string;
    if (selection.mode === 'animal') {
      // The caller sees the animal: its every event, the operation's visibility said by `visible`.
      visible = `coalesce(${scope.sql}, false)`;
      params.push(...scope.params);
      conditions.push(b.byAnimals('array[?::uuid]'));
      params.push(selection.animalId);
    } else {
      visible = 'true';
      conditions.push(scope.sql);
      params.push(...scope.params);
      for (const f of EPC_FILTERS) if (q![f.field]) conditions.push(epcCondition(b, f.cte, f.animals(b), f.tags));
      q!.gtas?.forEach((_, i) => conditions.push(b.byGtas ? b.byGtas(`(select ids from wanted_gtas_${i})::uuid[]`) : 'false'));
    }
    arms.push(`select '${b.kind}'::text as kind, ${b.columns}, ${visible} as visible ${b.from} and ${conditions.join(' and ')}`);
  }
  if (!arms.length) return [];

  // Filters on the event as a whole, then the page, after the union.
  const outer: string[] = ['ev.event_time is not null'];
  if (q?.from) {
    outer.push('ev.event_time >= ?');
    params.push(q.from);
  }
  if (q?.to) {
    outer.push('ev.event_time < ?');
    params.push(q.to);
  }
  if (q?.unitCodes) {
    outer.push('ev.biz_unit_id in (select lu.id from control_unit lu where lu.str_code = any(?::text[]))');
    params.push(q.unitCodes);
  }
  if (q?.after) {
    outer.push('(ev.event_us, ev.ekey) > (?::bigint, ?::text)');
    params.push(q.after.us, q.after.key);
  }
  const limit = q ? ` limit ${q.perPage + 1}` : '';
  const members = (op: string, seq: string) =>
    branches.map((b) => `select mm.animal_id, mm.at from (${b.members(op, seq)}) mm where p.kind = '${b.kind}'`).join(' union all ');
  const narrowTo = selection.mode === 'animal' ? '?::uuid' : 'null::uuid';
  const sql = `with ${[...ctes, `ev0 as (${arms.join(' union all ')})`].join(', ')},
    ev as (select ev0.*, (extract(epoch from ev0.event_time) * 1000000)::bigint as event_us,
                  ev0.kind || ':' || ev0.op_id || coalesce(':' || ev0.seq, '') as ekey from ev0)
    select p.kind, p.op_id, p.ekey, p.event_us::text as event_us, p.event_time, p.record_time, p.reason, p.error_at,
           ru.str_code as read_point_code, bu.str_code as biz_location_code, rc.str_federative_unit,
           case when p.source_unit_id is not null then array(select su.establishment_id from control_unit su where su.id = p.source_unit_id)
                else array(select distinct sg.from_establishment_id from gta sg where sg.id = any(p.gta_ids) and sg.from_establishment_id is not null) end as source_ids,
           array(select du.establishment_id from control_unit du where du.id = p.dest_unit_id) as destination_ids,
           (select json_agg(json_build_object('uf', g.str_federative_unit, 'series', g.str_series, 'code', g.str_code) order by g.str_federative_unit, g.str_code) from gta g where g.id = any(p.gta_ids)) as gtas,
           (select ct.str_code from tag ct where ct.id = p.child_tag_id) as child_tag_code,
           (select ot.str_code from tag ot where ot.id = p.old_tag_id) as old_tag_code,
           x.epcs
      from (select * from ev where ${outer.join(' and ')} order by ev.event_us, ev.ekey${limit}) p
      join control_unit ru on ru.id = p.unit_id
      join establishment re on re.id = ru.establishment_id
      left join county rc on rc.id = re.county_id
      left join control_unit bu on bu.id = p.biz_unit_id
      left join lateral (
        select array_agg(coalesce(
                 (select lt.str_code from tag lt where lt.animal_id = ma.animal_id and not exists (select 1 from tags_replacement_tag lr where lr.new_tag_id = lt.id) order by lt.ts_created_at, lt.id limit 1),
                 ma.animal_id::text) order by ma.at, ma.animal_id) as epcs
          from (${members('p.op_id', 'p.seq')}) ma
         where p.visible or ma.animal_id = ${narrowTo}
      ) x on true
     order by p.event_us, p.ekey`;
  if (selection.mode === 'animal') params.push(selection.animalId);
  return db.rows<EpcisRow>({ sql, params });
}
