import type { EntityManager } from '@mikro-orm/postgresql';
import { closeStays, reopenStaysOf } from '../animals/stays.js';
import type { Actor } from '../identity/actor.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import type { AnimalsEgress } from './animals-egress.entity.js';
import { epcisStep } from '../shared/epcis-step.js';
import { effectiveStatus } from './gta.rules.js';
import { markStored } from './movement-records.js';
import type { MovementWork } from './movement.policy.js';
import { ruleViolated, worstSocio } from './movement.rules.js';

interface CarriedAnimal {
  id: string;
  str_status: string;
  last_control_unit_id: string;
  str_socioenvironmental_status: string;
  str_tag_code: string | null;
  ts_egress_at: Date | null;
}

interface GtaRow {
  id: string;
  str_status: string;
  ts_valid_until: Date | null;
  from_control_unit_id: string | null;
  to_control_unit_id: string | null;
  int_animal_quantity: number | null;
  organization_id: string | null;
}

const named = (animals: CarriedAnimal[]) => animals.map((a) => ({ id: a.id, str_tag_code: a.str_tag_code, str_status: a.str_status, str_socioenvironmental_status: a.str_socioenvironmental_status }));

/**
 * OPEN → FINISHED (DOMAIN.md, "Animal movements"), refused with RULE_VIOLATED naming the rule (and
 * the animals) when: nothing was read; the origin is SUSPENDED or INACTIVE; a FARM origin has no
 * CAR; there is no GTA, or it is not ISSUED/IN_USE, is expired, or is for another origin or
 * destination; an animal is not ACTIVE at the origin; the GTA's quantity would be exceeded; a
 * NON_COMPLIANT animal goes to a slaughterhouse. Then, set-based: animals IN_TRANSIT, their stays
 * closed at their read times, the GTA IN_USE (and completed, when the state notified it without
 * origin, destination or quantity), one event listing the animals. Statements do not grow with the count.
 */
export async function finishEgress(tx: EntityManager, actor: Actor, egress: AnimalsEgress, work: MovementWork): Promise<AnimalsEgress> {
  const { unit, establishment: origin } = work;
  if (egress.int_tag_count === 0) throw ruleViolated('EGRESS_WITHOUT_ANIMALS', 'read at least one animal before finishing the egress');
  if (origin.str_status !== 'ACTIVE') throw ruleViolated('ORIGIN_NOT_ACTIVE', `the origin establishment is ${origin.str_status}: no animal leaves it`, { str_status: origin.str_status });
  if (origin.str_type === 'FARM' && !origin.str_car) throw ruleViolated('ORIGIN_WITHOUT_CAR', 'a FARM without a CAR (rural environmental registry) code dispatches no animal');
  if (!egress.gta_id) throw ruleViolated('GTA_REQUIRED', 'animals move under a GTA: set gta_id before finishing');
  const [gta] = await tx.execute<GtaRow[]>('select * from gta where id = ? for update', [egress.gta_id]);
  const status = effectiveStatus(gta!);
  if (status === 'EXPIRED') throw ruleViolated('GTA_EXPIRED', `the GTA expired at ${new Date(gta!.ts_valid_until!).toISOString()}`, { gta_id: gta!.id });
  if (status !== 'ISSUED' && status !== 'IN_USE') throw ruleViolated('GTA_NOT_USABLE', `a GTA ${status} carries no animals`, { gta_id: gta!.id, str_status: status });
  if (gta!.from_control_unit_id && gta!.from_control_unit_id !== unit.id) throw ruleViolated('GTA_FOR_ANOTHER_ORIGIN', 'the GTA was issued for another origin control unit', { gta_id: gta!.id });
  if (gta!.to_control_unit_id && egress.to_control_unit_id && gta!.to_control_unit_id !== egress.to_control_unit_id) {
    throw ruleViolated('GTA_FOR_ANOTHER_DESTINATION', 'the GTA was issued for another destination control unit', { gta_id: gta!.id });
  }
  const to = egress.to_control_unit_id ?? gta!.to_control_unit_id;
  if (!to) throw ruleViolated('DESTINATION_REQUIRED', 'neither the egress nor its GTA names the destination control unit');
  if (to === unit.id) throw ruleViolated('DESTINATION_IS_ORIGIN', 'the GTA names the origin as its destination');

  const animals = await tx.execute<CarriedAnimal[]>(
    `select a.id, a.str_status, a.last_control_unit_id, a.str_socioenvironmental_status, coalesce(r.str_tag_code, t.str_code) as str_tag_code, r.ts_egress_at
       from animals_egress_tag r join animal a on a.id = r.animal_id left join tag t on t.id = a.current_tag_id
      where r.animals_egress_id = ? order by a.id for update of a`,
    [egress.id],
  );
  const elsewhere = animals.filter((a) => a.str_status !== 'ACTIVE' || a.last_control_unit_id !== unit.id);
  if (elsewhere.length) throw ruleViolated('ANIMALS_NOT_ACTIVE_AT_ORIGIN', `${elsewhere.length} animal(s) read are not ACTIVE at the origin unit: remove their reads`, { animals: named(elsewhere) });
  const [context] = await tx.execute<{ n_dispatched: number; str_type: string; str_unit_type: string; establishment_id: string }[]>(
    `select (select count(*)::int from animals_egress_tag r join animals_egress e on e.id = r.animals_egress_id
              where e.gta_id = ? and e.str_status in ('FINISHED','RECEIVED') and e.id <> ?) as n_dispatched,
            de.str_type, cu.str_type as str_unit_type, de.id as establishment_id
       from control_unit cu join establishment de on de.id = cu.establishment_id where cu.id = ?`,
    [gta!.id, egress.id, to],
  );
  const quantity = gta!.int_animal_quantity;
  if (quantity !== null && context!.n_dispatched + animals.length > quantity) {
    throw ruleViolated('GTA_QUANTITY_EXCEEDED', `the GTA allows ${quantity} animal(s); ${context!.n_dispatched} already left under it and this egress carries ${animals.length}`, {
      int_animal_quantity: quantity,
      int_dispatched: context!.n_dispatched,
      int_tag_count: animals.length,
    });
  }
  if (context!.str_type === 'SLAUGHTERHOUSE' || context!.str_unit_type === 'SLAUGHTER') {
    const refused = animals.filter((a) => a.str_socioenvironmental_status === 'NON_COMPLIANT');
    if (refused.length) throw ruleViolated('NON_COMPLIANT_TO_SLAUGHTERHOUSE', `${refused.length} NON_COMPLIANT animal(s) may not go to a slaughterhouse`, { animals: named(refused) });
  }

  const now = new Date();
  const ids = animals.map((a) => a.id);
  await tx.execute(`update animal set str_status = 'IN_TRANSIT', ts_updated_at = ? where id = any(array[?]::uuid[])`, [now, ids]);
  await closeStays(tx, ids, now, { animals_egress_id: egress.id }, new Map(animals.flatMap((a) => (a.ts_egress_at ? [[a.id, new Date(a.ts_egress_at)] as const] : []))));
  const completes = { from_control_unit_id: unit.id, from_establishment_id: origin.id, organization_id: origin.organization_id, to_control_unit_id: to, to_establishment_id: context!.establishment_id, int_animal_quantity: quantity ?? animals.length };
  await tx.execute(
    `update gta set str_status = 'IN_USE', from_control_unit_id = coalesce(from_control_unit_id, ?), from_establishment_id = coalesce(from_establishment_id, ?),
            organization_id = coalesce(organization_id, ?), to_control_unit_id = coalesce(to_control_unit_id, ?), to_establishment_id = coalesce(to_establishment_id, ?),
            int_animal_quantity = coalesce(int_animal_quantity, ?), ts_updated_at = ?
      where id = ?`,
    [completes.from_control_unit_id, completes.from_establishment_id, completes.organization_id, completes.to_control_unit_id, completes.to_establishment_id, completes.int_animal_quantity, now, gta!.id],
  );
  Object.assign(egress, { str_status: 'FINISHED', to_control_unit_id: to, int_tag_count: animals.length, str_socioenvironmental_status: worstSocio(animals.map((a) => a.str_socioenvironmental_status)), ts_finished_at: now, ts_updated_at: now });
  await tx.execute('update animals_egress set str_status = ?, to_control_unit_id = ?, int_tag_count = ?, str_socioenvironmental_status = ?, ts_finished_at = ?, ts_updated_at = ? where id = ?', [
    egress.str_status,
    to,
    egress.int_tag_count,
    egress.str_socioenvironmental_status,
    now,
    now,
    egress.id,
  ]);
  markStored(tx, egress);
  const refs = { organization_id: origin.organization_id, from_control_unit_id: unit.id, to_control_unit_id: to, gta_id: gta!.id, animals_egress_id: egress.id };
  const gtaChanges = Object.fromEntries(Object.entries(completes).filter(([k]) => (gta as unknown as Record<string, unknown>)[k] === null));
  const events: EventInput[] = [
    {
      type: 'ANIMALS_EGRESS_FINISHED',
      recordType: 'AnimalsEgress',
      recordId: egress.id,
      actorId: actor.userId,
      occurredAt: now,
      payload: {
        changes: { str_status: 'FINISHED', int_tag_count: animals.length, str_socioenvironmental_status: egress.str_socioenvironmental_status, to_control_unit_id: to },
        refs,
        epcis: epcisStep('shipping', 'in_transit', [gta!.id], { control_unit_id: unit.id, establishment_id: origin.id }, { control_unit_id: to, establishment_id: context!.establishment_id }),
        listed: { Animal: { str_event: 'ANIMAL_DISPATCHED', changes: { str_status: 'IN_TRANSIT' }, refs } },
      },
      subjects: animals.map((a) => ({ recordType: 'Animal', recordId: a.id, occurredAt: a.ts_egress_at ? new Date(a.ts_egress_at) : null, own: { refs: { str_tag_code: a.str_tag_code } } })),
    },
  ];
  if (gta!.str_status !== 'IN_USE' || Object.keys(gtaChanges).length) {
    events.push({ type: 'GTA_IN_USE', recordType: 'Gta', recordId: gta!.id, actorId: actor.userId, payload: { changes: { str_status: 'IN_USE', ...gtaChanges }, refs } });
  }
  await appendEvents(tx, events);
  return egress;
}

/**
 * OPEN or FINISHED → CANCELLED: a finished egress's animals come back ACTIVE at the origin (their
 * stays reopened, as if they never left) unless an ingress already took one in; the GTA goes back
 * to ISSUED when no other egress left under it.
 */
export async function cancelEgress(tx: EntityManager, actor: Actor, egress: AnimalsEgress, work: MovementWork): Promise<AnimalsEgress> {
  const now = new Date();
  const refs = { organization_id: work.establishment.organization_id, from_control_unit_id: egress.from_control_unit_id, to_control_unit_id: egress.to_control_unit_id, gta_id: egress.gta_id, animals_egress_id: egress.id };
  const events: EventInput[] = [];
  let returned: string[] = [];
  if (egress.str_status === 'FINISHED') {
    const animals = await tx.execute<CarriedAnimal[]>(
      `select a.id, a.str_status, a.last_control_unit_id, a.str_socioenvironmental_status, r.str_tag_code, r.ts_egress_at
         from animals_egress_tag r join animal a on a.id = r.animal_id where r.animals_egress_id = ? order by a.id for update of a`,
      [egress.id],
    );
    const arrived = animals.filter((a) => a.str_status !== 'IN_TRANSIT' || a.last_control_unit_id !== egress.from_control_unit_id);
    if (arrived.length) throw ruleViolated('EGRESS_PARTLY_RECEIVED', `${arrived.length} animal(s) of this egress were already received or changed: it can no longer be cancelled`, { animals: named(arrived) });
    const ids = animals.map((a) => a.id);
    await tx.execute(`update animal set str_status = 'ACTIVE', ts_updated_at = ? where id = any(array[?]::uuid[])`, [now, ids]);
    await reopenStaysOf(tx, egress.id, ids);
    const [gta] = await tx.execute<{ str_status: string; n_other: number }[]>(
      `update gta g set str_status = case when o.n = 0 then 'ISSUED' else g.str_status end, ts_updated_at = ?
         from (select count(*)::int as n from animals_egress e where e.gta_id = ? and e.id <> ? and e.str_status in ('FINISHED','RECEIVED')) o
        where g.id = ? and g.str_status = 'IN_USE' returning g.str_status, o.n as n_other`,
      [now, egress.gta_id, egress.id, egress.gta_id],
    );
    if (gta?.str_status === 'ISSUED') events.push({ type: 'GTA_RELEASED', recordType: 'Gta', recordId: egress.gta_id!, actorId: actor.userId, payload: { changes: { str_status: 'ISSUED' }, refs } });
    returned = animals.map((a) => a.id);
  }
  egress.str_status = 'CANCELLED';
  egress.ts_updated_at = now;
  await tx.execute('update animals_egress set str_status = ?, ts_updated_at = ? where id = ?', ['CANCELLED', now, egress.id]);
  const listing = returned.length
    ? {
        epcis: epcisStep('void_shipping', 'in_progress', egress.gta_id ? [egress.gta_id] : [], { control_unit_id: egress.from_control_unit_id }, { control_unit_id: egress.to_control_unit_id }),
        listed: { Animal: { str_event: 'ANIMAL_DISPATCH_CANCELLED', changes: { str_status: 'ACTIVE' }, refs } },
      }
    : {};
  events.unshift({
    type: 'ANIMALS_EGRESS_CANCELLED',
    recordType: 'AnimalsEgress',
    recordId: egress.id,
    actorId: actor.userId,
    occurredAt: now,
    payload: { changes: { str_status: 'CANCELLED' }, refs, ...listing },
    subjects: returned.map((id) => ({ recordType: 'Animal', recordId: id })),
  });
  await appendEvents(tx, events);
  return egress;
}
