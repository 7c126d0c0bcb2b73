import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ruleViolated } from '../movements/movement.rules.js';
import { DomainError } from '../shared/errors.js';
import type { EventInput } from '../shared/events.js';
import { isUuid, newId } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import type { Travel } from './travel.entity.js';
import { clientId, deviceTime, position, type TravelEmbarkInput, type TravelStopInput } from './travel.input.js';
import { refsOf } from './travel.records.js';

export interface Leg {
  travel: Travel;
  events: EventInput[];
}

/** The egress statuses a truck loads: being read at the chute, or dispatched under its GTA. */
const LOADABLE = ['OPEN', 'FINISHED'];

/**
 * An egress loaded on the travel (DOMAIN.md, Travel: "the egresses loaded, with time and place").
 * Refused unless the egress leaves the travel's origin unit (422 on animals_egress_id, the same
 * answer as for an egress that does not exist: no other unit's egress is revealed), is OPEN or
 * FINISHED (EGRESS_NOT_LOADABLE), goes where the travel goes when it names a destination
 * (EGRESS_TO_ANOTHER_DESTINATION) and rides no other travel (EGRESS_ON_ANOTHER_TRAVEL: one at a
 * time, until that travel is cancelled). The same egress again, or the same client id and body, is
 * a replay that changes nothing; a client id reused with another body is a CONFLICT.
 */
export async function addEmbark(tx: EntityManager, actor: Actor, lock: () => Promise<Travel>, input: TravelEmbarkInput): Promise<Leg> {
  const check = new Checker();
  const now = new Date();
  const id = clientId(check, input.id);
  const egressId = input.animals_egress_id;
  if (!egressId) check.add('animals_egress_id', 'is required');
  else check.when(!isUuid(egressId), 'animals_egress_id', 'must be a uuid');
  const at = deviceTime(check, 'ts_embarked_at', input.ts_embarked_at, now)!;
  const where = position(check, 'geo_location', input.geo_location, true);
  check.throwIfAny();
  const travel = await lock();
  const egress = egressId!.toLowerCase();
  if (id) {
    const [same] = await tx.execute<{ travel_id: string; animals_egress_id: string; ts_embarked_at: Date | string; lon: number; lat: number }[]>(
      'select travel_id, animals_egress_id, ts_embarked_at, num_embark_longitude as lon, num_embark_latitude as lat from travel_embark where id = ?',
      [id],
    );
    if (same) {
      // A retry that left the time to the server is the same embark whenever it is sent.
      const sameTime = !input.ts_embarked_at || new Date(same.ts_embarked_at).getTime() === at.getTime();
      const replay = same.travel_id === travel.id && same.animals_egress_id === egress && sameTime && Number(same.lon) === where![0] && Number(same.lat) === where![1];
      if (replay) return { travel, events: [] };
      throw DomainError.conflict('id', 'is already taken by another embark');
    }
  }
  const [loaded] = await tx.execute<{ id: string; str_status: string; to_control_unit_id: string | null; riding: string | null }[]>(
    `select e.id, e.str_status, e.to_control_unit_id, (select te.travel_id from travel_embark te where te.animals_egress_id = e.id and te.ts_released_at is null) as riding
       from animals_egress e where e.id = ? and e.from_control_unit_id = ? for update of e`,
    [egress, travel.from_control_unit_id],
  );
  if (!loaded) throw DomainError.field('animals_egress_id', "no animals egress with this id leaves the travel's origin unit");
  if (loaded.riding === travel.id) return { travel, events: [] };
  if (!LOADABLE.includes(loaded.str_status)) {
    throw ruleViolated('EGRESS_NOT_LOADABLE', `an animals egress ${loaded.str_status} is not loaded on a truck: only ${LOADABLE.join(' or ')}`, { animals_egress_id: egress, str_status: loaded.str_status });
  }
  if (loaded.to_control_unit_id && loaded.to_control_unit_id !== travel.to_control_unit_id) {
    throw ruleViolated('EGRESS_TO_ANOTHER_DESTINATION', 'the animals egress goes to another control unit than the travel', { animals_egress_id: egress, to_control_unit_id: loaded.to_control_unit_id });
  }
  if (loaded.riding) throw ruleViolated('EGRESS_ON_ANOTHER_TRAVEL', 'the animals egress rides another travel (one at a time, until that one is cancelled)', { animals_egress_id: egress, travel_id: loaded.riding });
  const embarkId = id ?? newId();
  await tx.execute(
    `insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at, num_embark_longitude, num_embark_latitude, ts_created_at, ts_updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [embarkId, travel.id, egress, at, where![0], where![1], now, now],
  );
  travel.ts_updated_at = now;
  await tx.flush();
  const changes = { embark: { id: embarkId, animals_egress_id: egress, ts_embarked_at: at, geo_location: { type: 'Point', coordinates: where } } };
  return { travel, events: [{ type: 'TRAVEL_EMBARKED', recordType: 'Travel', recordId: travel.id, actorId: actor.userId, occurredAt: at, payload: { changes, refs: refsOf(travel) } }] };
}

/**
 * A stop on the way while the trip is IN_PROGRESS: where, arrival and (optional) departure, never
 * before the start. A client id makes it idempotent like an embark.
 */
export async function addStop(tx: EntityManager, actor: Actor, lock: () => Promise<Travel>, input: TravelStopInput): Promise<Leg> {
  const check = new Checker();
  const now = new Date();
  const id = clientId(check, input.id);
  const where = position(check, 'geo_location', input.geo_location, true);
  const arrival = deviceTime(check, 'ts_arrival', input.ts_arrival, now, true);
  const departure = input.ts_departure === undefined || input.ts_departure === null ? null : deviceTime(check, 'ts_departure', input.ts_departure, now);
  if (arrival && departure && departure < arrival) check.add('ts_departure', 'must not be before ts_arrival');
  check.throwIfAny();
  const travel = await lock();
  if (id) {
    const [same] = await tx.execute<{ travel_id: string; ts_arrival: Date | string; ts_departure: Date | string | null; lon: number; lat: number }[]>(
      'select travel_id, ts_arrival, ts_departure, num_stop_longitude as lon, num_stop_latitude as lat from travel_stop where id = ?',
      [id],
    );
    if (same) {
      const time = (v: Date | string | null) => (v === null ? null : new Date(v).getTime());
      const replay = same.travel_id === travel.id && time(same.ts_arrival) === arrival!.getTime() && time(same.ts_departure) === (departure?.getTime() ?? null) && Number(same.lon) === where![0] && Number(same.lat) === where![1];
      if (replay) return { travel, events: [] };
      throw DomainError.conflict('id', 'is already taken by another stop');
    }
  }
  if (arrival! < new Date(travel.ts_start_time!)) throw DomainError.field('ts_arrival', "must not be before the travel's ts_start_time");
  const stopId = id ?? newId();
  await tx.execute(
    `insert into travel_stop (id, travel_id, num_stop_longitude, num_stop_latitude, ts_arrival, ts_departure, ts_created_at, ts_updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [stopId, travel.id, where![0], where![1], arrival, departure, now, now],
  );
  travel.ts_updated_at = now;
  await tx.flush();
  const changes = { stop: { id: stopId, geo_location: { type: 'Point', coordinates: where }, ts_arrival: arrival, ts_departure: departure } };
  return { travel, events: [{ type: 'TRAVEL_STOP_RECORDED', recordType: 'Travel', recordId: travel.id, actorId: actor.userId, occurredAt: arrival!, payload: { changes, refs: refsOf(travel) } }] };
}
