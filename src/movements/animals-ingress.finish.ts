import type { EntityManager } from '@mikro-orm/postgresql';
import { openStays } from '../animals/stays.js';
import { executeBound } from '../db/bound.js';
import type { Actor } from '../identity/actor.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { epcisStep } from '../shared/epcis-step.js';
import { newId } from '../shared/ids.js';
import type { AnimalsIngress } from './animals-ingress.entity.js';
import { arrive, settledListing, settleGtas, type Destination } from './arrivals.js';
import { markStored } from './movement-records.js';
import type { MovementWork } from './movement.policy.js';
import { ruleViolated, worstSocio } from './movement.rules.js';
import type { RaisedOccurrence } from './occurrence.rules.js';
import { raiseOccurrences } from './occurrences.raise.js';
import { HOLDER_OF_UNIT } from '../places/unit-holder.js';

interface Dispatched {
  id: string;
  egress_id: string;
  gta_id: string;
  from_control_unit_id: string;
}

interface IngressRead {
  id: string;
  animal_id: string | null;
  str_tag_code: string | null;
  str_rod_code: string | null;
  ts_ingress_at: Date | null;
}

/**
 * OPEN → RECEIVED | RECEIVED_WITH_DIVERGENCE (DOMAIN.md, "Animal movements"): the reads against
 * the animals still IN_TRANSIT under the ingress's GTAs. Matched animals arrive (ACTIVE here);
 * dispatched but unread ones stay IN_TRANSIT with a MISSING_ON_ARRIVAL occurrence; read animals
 * that were not dispatched raise UNEXPECTED_ANIMAL; unknown codes become external tags and
 * animals here (UNEXPECTED_ANIMAL too). Reading off with no reads: every dispatched animal arrives
 * and a count that differs raises COUNT_DIVERGENCE. GTAs whose animals all arrived become
 * RECEIVED with their egresses. A constant number of statements, however many animals.
 */
export async function finishIngress(tx: EntityManager, actor: Actor, ingress: AnimalsIngress, work: MovementWork): Promise<AnimalsIngress> {
  const { unit, establishment } = work;
  const gtaRows = await tx.execute<{ gta_id: string; str_species: string }[]>(
    'select ig.gta_id, g.str_species from animals_ingress_gta ig join gta g on g.id = ig.gta_id where ig.animals_ingress_id = ? order by g.id for update of g',
    [ingress.id],
  );
  const gtaIds = gtaRows.map((g) => g.gta_id);
  const dispatched = await executeBound<Dispatched>(
    tx,
    `select a.id, e.id as egress_id, e.gta_id, e.from_control_unit_id
       from animals_egress e join animals_egress_tag r on r.animals_egress_id = e.id join animal a on a.id = r.animal_id
      where e.gta_id = any(?::uuid[]) and e.str_status = 'FINISHED' and a.str_status = 'IN_TRANSIT' and a.last_control_unit_id = e.from_control_unit_id
      order by a.id for update of a`,
    [gtaIds],
  );
  const reads = await executeBound<IngressRead>(tx, 'select id, animal_id, str_tag_code, str_rod_code, ts_ingress_at from animals_ingress_tag where animals_ingress_id = ? order by ts_created_at, id', [ingress.id]);
  const byCount = reads.length === 0;
  if (byCount && (ingress.bl_move_with_tag_reading || ingress.int_animal_count === null)) {
    throw ruleViolated('INGRESS_WITHOUT_READS', ingress.bl_move_with_tag_reading ? 'read the animals off the truck before finishing' : 'read the animals or give int_animal_count before finishing');
  }

  const dispatchedIds = new Set(dispatched.map((d) => d.id));
  const readIds = new Set(reads.flatMap((r) => (r.animal_id ? [r.animal_id] : [])));
  const matched = byCount ? dispatched : dispatched.filter((d) => readIds.has(d.id));
  const missing = byCount ? [] : dispatched.filter((d) => !readIds.has(d.id));
  // The missing animals' tag codes, for their occurrences: looked up only when some are missing
  // (issue 20: joining every dispatched animal's tag cost 5,000 look-ups for none).
  const missingCodes = missing.length
    ? new Map((await executeBound<{ id: string; str_code: string }>(tx, 'select a.id, t.str_code from animal a join tag t on t.id = a.current_tag_id where a.id = any(?::uuid[])', [missing.map((d) => d.id)])).map((r) => [r.id, r.str_code]))
    : new Map<string, string>();
  const unexpected = reads.filter((r) => r.animal_id && !dispatchedIds.has(r.animal_id));
  const unknown = reads.filter((r) => !r.animal_id);
  const countDiverges = byCount && ingress.int_animal_count !== dispatched.length;

  const now = new Date();
  const to: Destination = { unitId: unit.id, establishmentId: establishment.id, organizationId: establishment.organization_id, socio: establishment.str_socioenvironmental_status };
  const readTimes = new Map(reads.flatMap((r) => (r.animal_id && r.ts_ingress_at ? [[r.animal_id, new Date(r.ts_ingress_at)] as const] : [])));
  const statuses = await arrive(tx, matched.map((d) => d.id), to, now, readTimes, ingress.id);
  const registered = await registerUnknown(tx, unknown, to, gtaRows[0]?.str_species ?? 'BOVINE', now, ingress.id);

  const common = { control_unit_id: unit.id, animals_ingress_id: ingress.id };
  const occurrences: RaisedOccurrence[] = [
    ...missing.map((d): RaisedOccurrence => ({ ...common, str_type: 'MISSING_ON_ARRIVAL', animal_id: d.id, animals_egress_id: d.egress_id, gta_id: d.gta_id, str_description: `dispatched under the GTA but not read on arrival${missingCodes.has(d.id) ? ` (tag ${missingCodes.get(d.id)})` : ''}` })),
    ...unexpected.map((r): RaisedOccurrence => ({ ...common, str_type: 'UNEXPECTED_ANIMAL', animal_id: r.animal_id, str_description: `read on arrival but not dispatched under this ingress's GTAs${r.str_tag_code ? ` (tag ${r.str_tag_code})` : ''}` })),
    ...registered.map((n): RaisedOccurrence => ({ ...common, str_type: 'UNEXPECTED_ANIMAL', animal_id: n.animal_id, tag_id: n.tag_id, str_description: `arrived with an unknown code ${n.code}: registered here as an external ${n.tag_id ? 'tag' : 'rod code'}` })),
  ];
  if (countDiverges) {
    occurrences.push({ ...common, str_type: 'COUNT_DIVERGENCE', str_description: `${ingress.int_animal_count} animal(s) counted on arrival, ${dispatched.length} dispatched under the GTAs` });
  }
  const refs = { organization_id: establishment.organization_id, to_control_unit_id: unit.id, animals_ingress_id: ingress.id };
  const occurrenceEvents = await raiseOccurrences(tx, actor.userId, occurrences);
  const settled = await settleGtas(tx, gtaIds);

  const diverges = missing.length > 0 || unexpected.length > 0 || registered.length > 0 || countDiverges;
  Object.assign(ingress, {
    str_status: diverges ? 'RECEIVED_WITH_DIVERGENCE' : 'RECEIVED',
    int_received_count: matched.length,
    str_socioenvironmental_status: worstSocio([...statuses.values(), ...(registered.length ? [to.socio] : [])]),
    ts_finished_at: now,
    ts_updated_at: now,
  });
  await tx.execute('update animals_ingress set str_status = ?, int_received_count = ?, str_socioenvironmental_status = ?, ts_finished_at = ?, ts_updated_at = ? where id = ?', [
    ingress.str_status,
    ingress.int_received_count,
    ingress.str_socioenvironmental_status,
    now,
    now,
    ingress.id,
  ]);
  markStored(tx, ingress);
  const gtaListing = settledListing(settled, refs);
  const events: EventInput[] = [
    {
      type: 'ANIMALS_INGRESS_FINISHED',
      recordType: 'AnimalsIngress',
      recordId: ingress.id,
      actorId: actor.userId,
      occurredAt: now,
      payload: {
        changes: { str_status: ingress.str_status, int_received_count: matched.length, str_socioenvironmental_status: ingress.str_socioenvironmental_status },
        refs: { ...refs, int_missing: missing.length, int_unexpected: unexpected.length, int_registered: registered.length, int_animal_count: ingress.int_animal_count },
        epcis: epcisStep('receiving', 'active', gtaIds, { control_unit_ids: [...new Set(dispatched.map((d) => d.from_control_unit_id))] }, { control_unit_id: unit.id, establishment_id: establishment.id }),
        listed: { Animal: { str_event: 'ANIMAL_RECEIVED', changes: { str_status: 'ACTIVE', last_control_unit_id: unit.id }, refs }, ...gtaListing.listed },
      },
      subjects: [
        ...matched.map((d) => ({
          recordType: 'Animal',
          recordId: d.id,
          occurredAt: readTimes.get(d.id) ?? null,
          own: { changes: { str_socioenvironmental_status: statuses.get(d.id) }, refs: { gta_id: d.gta_id, animals_egress_id: d.egress_id } },
        })),
        ...gtaListing.subjects,
      ],
    },
    ...registered.map((n): EventInput => ({
      type: 'ANIMAL_REGISTERED_ON_ARRIVAL',
      recordType: 'Animal',
      recordId: n.animal_id,
      actorId: actor.userId,
      occurredAt: n.at ?? now,
      payload: { changes: { str_status: 'ACTIVE', last_control_unit_id: unit.id, bl_external_tag: !!n.tag_id, str_tag_code: n.tag_id ? n.code : null, str_rod_code: n.tag_id ? null : n.code }, refs },
    })),
    ...occurrenceEvents,
  ];
  await appendEvents(tx, events);
  return ingress;
}

interface Registered {
  animal_id: string;
  tag_id: string | null;
  code: string;
  at: Date | null;
}

/** Unknown codes read on arrival become animals here, with an external tag (a tag code) or their rod code: never in a supplier's box. */
async function registerUnknown(tx: EntityManager, reads: IngressRead[], to: Destination, species: string, at: Date, ingressId: string): Promise<Registered[]> {
  if (!reads.length) return [];
  const rows = reads.map((r) => ({
    read_id: r.id,
    animal_id: newId(),
    tag_id: r.str_tag_code ? newId() : null,
    str_tag_code: r.str_tag_code,
    str_rod_code: r.str_tag_code ? null : r.str_rod_code,
    at: r.ts_ingress_at ? new Date(r.ts_ingress_at).toISOString() : null,
  }));
  const json = JSON.stringify(rows);
  await executeBound(
    tx,
    `insert into animal (id, str_species, str_status, str_socioenvironmental_status, current_tag_id, last_control_unit_id, str_rod_code, ts_identified_at, holder_organization_id, holder_federative_unit)
     select x.animal_id, ?, 'ACTIVE', ?, x.tag_id, ?, x.str_rod_code, coalesce(x.at, ?), uh.holder_organization_id, uh.holder_federative_unit
       from jsonb_to_recordset(?::jsonb) as x(animal_id uuid, tag_id uuid, str_rod_code text, at timestamptz), ${HOLDER_OF_UNIT}`,
    [species, to.socio, to.unitId, at, json, to.unitId],
  );
  await executeBound(
    tx,
    `insert into tag (id, str_code, str_status, bl_external_tag, animal_id)
     select x.tag_id, x.str_tag_code, 'APPLIED', true, x.animal_id from jsonb_to_recordset(?::jsonb) as x(tag_id uuid, animal_id uuid, str_tag_code text) where x.tag_id is not null`,
    [json],
  );
  await executeBound(tx, `update animals_ingress_tag r set animal_id = x.animal_id, tag_id = x.tag_id from jsonb_to_recordset(?::jsonb) as x(read_id uuid, animal_id uuid, tag_id uuid) where r.id = x.read_id`, [json]);
  await openStays(tx, rows.map((r) => r.animal_id), { time: at }, { animals_ingress_id: ingressId }, new Map(rows.flatMap((r) => (r.at ? [[r.animal_id, new Date(r.at)] as const] : []))));
  return rows.map((r) => ({ animal_id: r.animal_id, tag_id: r.tag_id, code: (r.str_tag_code ?? r.str_rod_code)!, at: r.at ? new Date(r.at) : null }));
}
