import { randomUUID } from 'node:crypto';
import { mustPost, type TestApp } from './app.js';
import { listedEntry } from '../../src/shared/history.js';

/** Tags Data Without Assoc: the fields of every tag in a writeoff or replacement record. */
export const TAG_KEYS = ['id', 'str_code', 'str_status', 'ts_created_at', 'ts_updated_at'].sort();

/** A reservation at the unit holding the given tags (RESERVED), written straight to the database (set-up). */
export async function reserveTags(app: TestApp, unitId: string, tagIds: string[]): Promise<string> {
  const id = randomUUID();
  const em = app.service.orm.em.fork();
  await em.execute(`insert into tags_reservation (id, control_unit_id, str_name, int_quantity) values (?, ?, 'Lote', ?)`, [id, unitId, tagIds.length]);
  await em.execute(`update tag set str_status = 'RESERVED', tags_reservation_id = ? where id = any(array[?]::uuid[])`, [id, tagIds]);
  return id;
}

/** POST /api/tags-reservations of one item that must answer 201; returns the Tags Reservation. */
export async function reserveOverHttp(app: TestApp, token: string, item: Record<string, unknown>): Promise<{ id: string; str_status: string; [field: string]: unknown }> {
  return (await mustPost(app, '/api/tags-reservations', token, { reservations: [{ str_name: 'Lote', ...item }] })).body.data[0];
}

/** A reservation's status as GET /api/tags-reservations/{id} answers it. */
export async function reservationStatus(app: TestApp, token: string, id: string): Promise<string> {
  const res = await app.call('GET', `/api/tags-reservations/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body.data.str_status;
}

/** The reservation was used up by the operation `refs` names: USED, its one TAGS_RESERVATION_USED event after its creation, and a release refused. */
export async function expectUsedBy(app: TestApp, token: string, reservationId: string, refs: Record<string, unknown>): Promise<void> {
  expect(await reservationStatus(app, token, reservationId)).toBe('USED');
  const events = await eventsOf(app, 'TagsReservation', reservationId);
  expect(events.map((e) => e.str_type)).toEqual(['TAGS_RESERVATION_CREATED', 'TAGS_RESERVATION_USED']);
  expect(events[1]!.payload).toMatchObject({ changes: { str_status: { from: 'ACTIVE', to: 'USED' } }, refs });
  const release = await app.call('POST', `/api/tags-reservations/${reservationId}/release`, { token });
  expect(release.status).toBe(422);
  expect(release.body.detail).toMatchObject({ str_status: 'USED', allowed: ['ACTIVE'] });
}

export interface TagRow {
  id: string;
  str_code: string;
  str_status: string;
  animal_id: string | null;
  tags_reservation_id: string | null;
  str_writeoff_reason: string | null;
  ts_writeoff_at: Date | null;
}

export async function tagRows(app: TestApp, ids: string[]): Promise<TagRow[]> {
  return app.service.orm.em
    .fork()
    .execute<TagRow[]>('select id, str_code, str_status, animal_id, tags_reservation_id, str_writeoff_reason, ts_writeoff_at from tag where id = any(array[?]::uuid[]) order by str_code', [ids]);
}

export async function animalRows(app: TestApp, ids: string[]): Promise<{ id: string; str_status: string; current_tag_id: string | null; ts_ended_at: Date | null }[]> {
  return app.service.orm.em
    .fork()
    .execute('select id, str_status, current_tag_id, ts_ended_at from animal where id = any(array[?]::uuid[]) order by id', [ids]);
}

export async function statusCounts(app: TestApp, ids: string[]): Promise<Record<string, number>> {
  const rows = await app.service.orm.em.fork().execute<{ str_status: string; n: number }[]>('select str_status, count(*)::int as n from tag where id = any(array[?]::uuid[]) group by str_status', [ids]);
  return Object.fromEntries(rows.map((r) => [r.str_status, r.n]));
}

/** An event's payload as the tag operations write it. */
export interface Payload {
  changes: Record<string, unknown>;
  refs: Record<string, unknown>;
  tags: unknown[];
  [key: string]: unknown;
}

/**
 * A record's events in log order: its own, and those of bulk operations that list it (issue 20),
 * each of those as the record's history shows it (its event name, changes and refs).
 */
export async function eventsOf(app: TestApp, recordType: string, recordId: string): Promise<{ str_type: string; payload: Payload }[]> {
  const rows = await app.service.orm.em.fork().execute<{ str_type: string; str_payload: string; str_detail: string | null }[]>(
    `select * from (select seq, str_type, str_payload, null as str_detail from event where str_record_type = ? and record_id = ?
                    union all
                    select e.seq, e.str_type, e.str_payload, coalesce(s.str_detail, '') from event_subject s join event e on e.seq = s.event_seq where s.str_record_type = ? and s.record_id = ?) x
      order by seq`,
    [recordType, recordId, recordType, recordId],
  );
  return rows.map((r) => {
    if (r.str_detail === null) return { str_type: r.str_type, payload: JSON.parse(r.str_payload) as Payload };
    const { str_event, changes, refs } = listedEntry(JSON.parse(r.str_payload), recordType, r.str_detail);
    return { str_type: str_event, payload: { changes, refs } as Payload };
  });
}

export async function setStatus(app: TestApp, table: 'tag' | 'animal', ids: string[], status: string): Promise<void> {
  await app.service.orm.em.fork().execute(`update ${table} set str_status = ? where id = any(array[?]::uuid[])`, [status, ids]);
}
