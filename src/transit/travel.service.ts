import type { EntityManager } from '@mikro-orm/postgresql';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { trimmedOrNull } from '../tags/field-work.js';
import { workUnit } from '../tags/tags.policy.js';
import { Travel } from './travel.entity.js';
import { checkTravelInput, deviceTime, position, type TravelFinishInput, type TravelInput, type TravelStartInput } from './travel.input.js';
import { finishTravel } from './travel.finish.js';
import { addEmbark, addStop } from './travel.legs.js';
import type { TravelEmbarkInput, TravelStopInput } from './travel.input.js';
import { travelPolicy } from './travel.policy.js';
import { TRAVEL_SEARCH, travelSource } from './travel.reader.js';
import { lockTravel, refsOf } from './travel.records.js';
import { TransitTime } from './travel.transit-time.js';

const NOUN = 'travel';

/** Opens the write side only when a read must write (a trip found past the maximum journey time). */
export type Writer = () => EntityManager;

/**
 * Truck trips carrying egresses (DOMAIN.md, Travel): PLANNED → IN_PROGRESS (start) → FINISHED |
 * CANCELLED, with embarks (the egresses loaded) and stops. A travel never changes animals or
 * egresses: an egress it carries stays IN_TRANSIT until its ingress, whatever the travel says.
 */
export class TravelService {
  readonly transitTime: TransitTime;

  constructor(maxHours: number) {
    this.transitTime = new TransitTime(maxHours);
  }

  async get(em: EntityManager, actor: Actor, id: string): Promise<Travel> {
    return mustFindVisible(em, Travel, 'travel t', travelPolicy.scope(actor), id.toLowerCase(), NOUN);
  }

  /** One travel; when it is found under way past the maximum journey time, TRANSIT_TIME_EXCEEDED is raised once. */
  async read(db: Db, actor: Actor, id: string, include: Include, writer: Writer): Promise<Read<Travel>> {
    const found = await readVisible<Travel>(db, actor, travelSource, travelPolicy.scope(actor), id, NOUN, include);
    await this.transitTime.raiseOnRead(writer, [found.row]);
    return found;
  }

  async page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions, writer: Writer): Promise<ReadPage<Travel>> {
    const found = await readVisiblePage<Travel>(db, actor, travelSource, travelPolicy.scope(actor), TRAVEL_SEARCH, filters, page, options);
    await this.transitTime.raiseOnRead(writer, found.data);
    return found;
  }

  /** POST /api/travels: PLANNED, from a unit the caller works at, with a vehicle of the origin's or the transporter's organization. */
  async create(em: EntityManager, actor: Actor, input: TravelInput): Promise<Travel> {
    checkTravelInput(input);
    const work = await workUnit(em, actor, 'from_control_unit_id', input.from_control_unit_id!.toLowerCase());
    const hash = bodyHash({ ...input, id: undefined });
    const id = input.id?.toLowerCase();
    return em.transactional(async (tx) => {
      if (id) {
        const replayed = await replayCreate(tx, Travel, 'travel', 'Travel', 'TRAVEL_CREATED', id, hash, (r) => r.from_control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      const transporterId = input.transporter_user_id!.toLowerCase();
      const check = new Checker();
      const to = await tx.findOne(ControlUnit, { id: input.to_control_unit_id!.toLowerCase() });
      check.when(!to, 'to_control_unit_id', 'no such control unit');
      const [found] = await tx.execute<{ transporter: boolean; vehicle: boolean }[]>(
        `select exists (select 1 from "user" u where u.id = ?) as transporter,
                exists (select 1 from vehicle v where v.id = ? and (v.organization_id = ? or v.organization_id in (select m.organization_id from membership m where m.user_id = ?))) as vehicle`,
        [transporterId, input.vehicle_id!.toLowerCase(), work.establishment.organization_id, transporterId],
      );
      check.when(!found!.transporter, 'transporter_user_id', 'no such user');
      check.when(!found!.vehicle, 'vehicle_id', "no such vehicle in the origin's organization or in an organization of the transporter");
      check.throwIfAny();
      const travel = tx.create(Travel, {
        ...(id ? { id } : {}),
        vehicle_id: input.vehicle_id!.toLowerCase(),
        transporter_user_id: transporterId,
        str_consignee_name: trimmedOrNull(input.str_consignee_name),
        from_control_unit_id: work.unit.id,
        to_control_unit_id: to!.id,
        ts_unsafe_client_created_at: input.ts_unsafe_client_created_at ?? null,
      });
      await tx.persist(travel).flush();
      await appendEvents(tx, [
        {
          type: 'TRAVEL_CREATED',
          recordType: 'Travel',
          recordId: travel.id,
          actorId: actor.userId,
          payload: {
            changes: { str_status: 'PLANNED', vehicle_id: travel.vehicle_id, transporter_user_id: transporterId, str_consignee_name: travel.str_consignee_name, from_control_unit_id: travel.from_control_unit_id, to_control_unit_id: travel.to_control_unit_id },
            refs: { organization_id: work.establishment.organization_id },
            body_hash: hash,
          },
        },
      ]);
      return travel;
    });
  }

  /** POST /api/travels/:id/start: PLANNED → IN_PROGRESS at a time (default now) and a position. */
  async start(em: EntityManager, actor: Actor, id: string, input: TravelStartInput | null | undefined): Promise<Travel> {
    const visible = await this.worked(em, actor, id);
    const check = new Checker();
    const now = new Date();
    const at = deviceTime(check, 'ts_start_time', input?.ts_start_time, now)!;
    const from = position(check, 'geo_coordinates_from', input?.geo_coordinates_from, true);
    check.throwIfAny();
    return em.transactional(async (tx) => {
      const travel = await lockTravel(tx, visible.id, 'start');
      Object.assign(travel, { str_status: 'IN_PROGRESS', ts_start_time: at, num_from_longitude: from![0], num_from_latitude: from![1], ts_updated_at: now });
      await tx.flush();
      const events: EventInput[] = [
        { type: 'TRAVEL_STARTED', recordType: 'Travel', recordId: travel.id, actorId: actor.userId, payload: { changes: { str_status: 'IN_PROGRESS', ts_start_time: at, geo_coordinates_from: { type: 'Point', coordinates: from } }, refs: refsOf(travel) } },
      ];
      events.push(...(await this.raiseIfOverdue(tx, actor, travel, now)));
      await appendEvents(tx, events);
      return travel;
    });
  }

  /** POST /api/travels/:id/embarks: an egress of the origin loaded, with time and place, while PLANNED or IN_PROGRESS. */
  async embark(em: EntityManager, actor: Actor, id: string, input: TravelEmbarkInput | null | undefined): Promise<Travel> {
    const visible = await this.worked(em, actor, id);
    return em.transactional(async (tx) => {
      const leg = await addEmbark(tx, actor, () => lockTravel(tx, visible.id, 'embark'), input ?? {});
      const events = [...leg.events, ...(await this.raiseIfOverdue(tx, actor, leg.travel, new Date()))];
      await appendEvents(tx, events);
      return leg.travel;
    });
  }

  /** POST /api/travels/:id/stops: a stop on the way (position, arrival, departure) while IN_PROGRESS. */
  async stop(em: EntityManager, actor: Actor, id: string, input: TravelStopInput | null | undefined): Promise<Travel> {
    const visible = await this.worked(em, actor, id);
    return em.transactional(async (tx) => {
      const leg = await addStop(tx, actor, () => lockTravel(tx, visible.id, 'stop'), input ?? {});
      const events = [...leg.events, ...(await this.raiseIfOverdue(tx, actor, leg.travel, new Date()))];
      await appendEvents(tx, events);
      return leg.travel;
    });
  }

  /** POST /api/travels/:id/finish: IN_PROGRESS → FINISHED at ts_end_time (default now), int_duration in whole minutes. */
  async finish(em: EntityManager, actor: Actor, id: string, input: TravelFinishInput | null | undefined): Promise<Travel> {
    const visible = await this.worked(em, actor, id);
    const check = new Checker();
    const now = new Date();
    const end = deviceTime(check, 'ts_end_time', input?.ts_end_time, now)!;
    const to = position(check, 'geo_coordinates_to', input?.geo_coordinates_to, false);
    check.throwIfAny();
    return em.transactional(async (tx) => {
      const travel = await lockTravel(tx, visible.id, 'finish');
      const events = await finishTravel(tx, actor, travel, end, to);
      if (!travel.ts_transit_time_exceeded_at && this.transitTime.exceeded(new Date(travel.ts_start_time!), end)) {
        events.push(...(await this.transitTime.raise(tx, actor.userId, [travel.id], now, false)).events);
      }
      await appendEvents(tx, events);
      return travel;
    });
  }

  /** POST /api/travels/:id/cancel: PLANNED or IN_PROGRESS → CANCELLED; its egresses are free to ride another travel. */
  async cancel(em: EntityManager, actor: Actor, id: string): Promise<Travel> {
    const visible = await this.worked(em, actor, id);
    return em.transactional(async (tx) => {
      const travel = await lockTravel(tx, visible.id, 'cancel');
      const now = new Date();
      const released = await tx.execute<{ animals_egress_id: string }[]>('update travel_embark set ts_released_at = ?, ts_updated_at = ? where travel_id = ? and ts_released_at is null returning animals_egress_id', [now, now, travel.id]);
      Object.assign(travel, { str_status: 'CANCELLED', ts_updated_at: now });
      await tx.flush();
      await appendEvents(tx, [
        { type: 'TRAVEL_CANCELLED', recordType: 'Travel', recordId: travel.id, actorId: actor.userId, payload: { changes: { str_status: 'CANCELLED' }, refs: { ...refsOf(travel), released_animals_egress_ids: released.map((r) => r.animals_egress_id) } } },
      ]);
      return travel;
    });
  }

  /** The travel, when the caller sees it (404) and works it (403). */
  private async worked(em: EntityManager, actor: Actor, id: string): Promise<Travel> {
    const visible = await this.get(em, actor, id);
    await travelPolicy.canWork(em, actor, visible);
    return visible;
  }

  /** A command that leaves the trip under way past the limit reports it (once). */
  private async raiseIfOverdue(tx: EntityManager, actor: Actor, travel: Travel, now: Date): Promise<EventInput[]> {
    if (!this.transitTime.overdue([travel], now).length) return [];
    const raised = await this.transitTime.raise(tx, actor.userId, [travel.id], now, false);
    if (raised.marked.length) travel.ts_transit_time_exceeded_at = now;
    return raised.events;
  }
}
