import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { tagsPolicy } from '../tags/tags.policy.js';
import { movementPolicy } from './movement.policy.js';
import { geoPointProblem } from '../places/establishment.rules.js';
import { DomainError } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import { MAX_READS_PER_BATCH } from './movement.rules.js';

/** A read as a body gives it (Animals Egress Create Tags; an ingress's reads the same with ts_ingress_at/geo_ingress). */
export interface ReadInput {
  id?: string | null;
  tag_id?: string | null;
  str_tag_code?: string | null;
  str_rod_code?: string | null;
  ts_egress_at?: Date | null;
  geo_egress?: { type?: string | null; coordinates?: number[] | null } | null;
  ts_ingress_at?: Date | null;
  geo_ingress?: { type?: string | null; coordinates?: number[] | null } | null;
}

/** A checked read: the client's id (or a new one), what names the animal, when and where. */
export interface Read {
  idx: number;
  id: string;
  tag_id: string | null;
  str_tag_code: string | null;
  str_rod_code: string | null;
  at: string | null;
  lon: number | null;
  lat: number | null;
}

/** Which side of a movement reads: the table, its parent column and the names of its time and place. */
export interface ReadSide {
  table: 'animals_egress_tag' | 'animals_ingress_tag';
  parent: 'animals_egress_id' | 'animals_ingress_id';
  at: 'ts_egress_at' | 'ts_ingress_at';
  geo: 'geo_egress' | 'geo_ingress';
}

export const EGRESS_READS: ReadSide = { table: 'animals_egress_tag', parent: 'animals_egress_id', at: 'ts_egress_at', geo: 'geo_egress' };
export const INGRESS_READS: ReadSide = { table: 'animals_ingress_tag', parent: 'animals_ingress_id', at: 'ts_ingress_at', geo: 'geo_ingress' };

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * Checks a batch of reads, naming each problem by its path (`tags[3].ts_egress_at`): each read
 * names an animal by tag_id, str_tag_code (15 digits) or str_rod_code; with reading on, its time
 * and place are required. At most MAX_READS_PER_BATCH per request.
 */
export function checkReads(side: ReadSide, items: ReadInput[] | null | undefined, readingOn: boolean, field = 'tags'): Read[] {
  const check = new Checker();
  const reads: Read[] = [];
  if (!items) return reads;
  if (items.length > MAX_READS_PER_BATCH) {
    check.add(field, `at most ${MAX_READS_PER_BATCH} reads in one request: send the rest in another batch`);
    check.throwIfAny();
  }
  const ids = new Set<string>();
  items.forEach((item, idx) => {
    const at = (f: string) => `${field}[${idx}].${f}`;
    const tagId = item?.tag_id ?? null;
    const code = text(item?.str_tag_code);
    const rod = text(item?.str_rod_code);
    if (!tagId && !code && !rod) return void check.add(`${field}[${idx}]`, 'give the tag_id, str_tag_code or str_rod_code of the animal read');
    if (tagId && !isUuid(tagId)) check.add(at('tag_id'), 'must be a uuid');
    if (code && !/^[0-9]{15}$/.test(code)) check.add(at('str_tag_code'), 'must be 15 digits (ISO 11784)');
    let id = newId();
    if (item.id !== undefined && item.id !== null) {
      if (!isUuid(item.id)) check.add(at('id'), 'must be a uuid');
      else if (ids.has(item.id.toLowerCase())) check.add(at('id'), 'repeats an earlier read of this batch');
      else id = item.id.toLowerCase();
    }
    ids.add(id);
    const time = item[side.at] ?? null;
    const geo = item[side.geo] ?? null;
    if (readingOn) {
      if (!time) check.add(at(side.at), 'is required when the movement reads tags (bl_move_with_tag_reading)');
      if (!geo) check.add(at(side.geo), 'is required when the movement reads tags (bl_move_with_tag_reading)');
    }
    let point: number[] | null = null;
    if (geo) {
      const problem = geoPointProblem(geo);
      if (problem) check.add(at(side.geo), problem);
      else point = geo.coordinates!;
    }
    reads.push({ idx, id, tag_id: tagId?.toLowerCase() ?? null, str_tag_code: code, str_rod_code: rod, at: time ? time.toISOString() : null, lon: point?.[0] ?? null, lat: point?.[1] ?? null });
  });
  check.throwIfAny();
  return reads;
}

/** A read with the animal (and its current tag) it names, when one does. */
export interface ResolvedRead extends Read {
  animal_id: string | null;
  current_tag_id: string | null;
  tag_code: string | null;
}

/**
 * The animals a batch names, in one statement: a tag id or code names the animal its tag is (or
 * was) applied to, a rod code the animal carrying it. A read naming two different animals (a tag
 * of one and a rod code of another) is refused. A tag id the caller may not see is "no such tag",
 * as an unknown one (CONTRACT.md's body-id rule): the caller sees the tag's unit, or the tag's
 * animal was read into a movement the caller sees (how a destination learns the ids it receives).
 * Codes are printed on the ear and read at the chute: they are not ids, and name any animal.
 */
export async function resolveReads(tx: EntityManager, actor: Actor, reads: Read[], field = 'tags'): Promise<ResolvedRead[]> {
  if (!reads.length) return [];
  const unit = tagsPolicy.unitScope(actor, 'vt.last_control_unit_id', 'vt');
  const moved = movementPolicy.egressScope(actor);
  const rows = await tx.execute<{ idx: number; by_tag: string | null; by_code: string | null; by_rod: string | null; current_tag_id: string | null; tag_code: string | null; tag_known: boolean }[]>(
    `select x.idx, bt.animal_id as by_tag, bc.animal_id as by_code, br.id as by_rod, a.current_tag_id, ct.str_code as tag_code, (bt.id is not null or bc.id is not null) as tag_known
       from jsonb_to_recordset(?::jsonb) as x(idx int, tag_id uuid, str_tag_code text, str_rod_code text)
       left join lateral (select vt.id, vt.animal_id from tag_with_place vt where vt.id = x.tag_id
                   and (${unit.sql} or exists (select 1 from animals_egress_tag vr join animals_egress ae on ae.id = vr.animals_egress_id where vr.animal_id = vt.animal_id and ${moved.sql}))) bt on true
       left join tag bc on bc.str_code = x.str_tag_code
       left join animal br on br.str_rod_code = x.str_rod_code
       left join animal a on a.id = coalesce(bt.animal_id, bc.animal_id, br.id)
       left join tag ct on ct.id = a.current_tag_id
      order by x.idx`,
    [JSON.stringify(reads.map((r) => ({ idx: r.idx, tag_id: r.tag_id, str_tag_code: r.str_tag_code, str_rod_code: r.str_rod_code }))), ...unit.params, ...moved.params],
  );
  const check = new Checker();
  const out = reads.map((r, i): ResolvedRead => {
    const row = rows[i]!;
    const named = [...new Set([row.by_tag, row.by_code, row.by_rod].filter((v): v is string => !!v))];
    if (named.length > 1) check.add(`${field}[${r.idx}]`, 'names two different animals (its tag and its rod code disagree)');
    if (r.tag_id && !row.by_tag) check.add(`${field}[${r.idx}].tag_id`, row.tag_known ? 'is a tag applied to no animal' : 'no such tag');
    return { ...r, animal_id: named[0] ?? null, current_tag_id: row.current_tag_id, tag_code: row.tag_code ?? r.str_tag_code };
  });
  check.throwIfAny();
  return out;
}

/**
 * Stores a batch of reads of one movement: a read whose client id is already stored for this
 * movement is a retry and changes nothing, and so is a second read of an animal already read; a
 * client id used by another movement is a CONFLICT. Returns how many reads were new.
 */
export async function storeReads(tx: EntityManager, side: ReadSide, parentId: string, reads: ResolvedRead[]): Promise<number> {
  if (!reads.length) return 0;
  const ids = reads.map((r) => r.id);
  const taken = await tx.execute<{ id: string }[]>(`select id from ${side.table} where id = any(array[?]::uuid[]) and ${side.parent} <> ?`, [ids, parentId]);
  if (taken.length) {
    const at = reads.find((r) => r.id === taken[0]!.id)!;
    throw DomainError.conflict(`tags[${at.idx}].id`, 'is the id of a read of another movement');
  }
  const inserted = await tx.execute<{ id: string }[]>(
    `insert into ${side.table} (id, ${side.parent}, animal_id, tag_id, str_tag_code, str_rod_code, ${side.at}, num_longitude, num_latitude, ts_created_at, ts_updated_at)
     select x.id, ?, x.animal_id, x.tag_id, x.str_tag_code, x.str_rod_code, x.at, x.lon, x.lat, now() + x.idx * interval '1 microsecond', now() + x.idx * interval '1 microsecond'
       from jsonb_to_recordset(?::jsonb) as x(idx int, id uuid, animal_id uuid, tag_id uuid, str_tag_code text, str_rod_code text, at timestamptz, lon float8, lat float8)
     on conflict do nothing
     returning id`,
    [
      parentId,
      JSON.stringify(
        reads.map((r) => ({ idx: r.idx, id: r.id, animal_id: r.animal_id, tag_id: r.current_tag_id ?? r.tag_id, str_tag_code: r.tag_code ?? r.str_tag_code, str_rod_code: r.str_rod_code, at: r.at, lon: r.lon, lat: r.lat })),
      ),
    ],
  );
  return inserted.length;
}

/** Removes one read while the movement is OPEN; 404 when the movement has no such read. */
export async function removeRead(tx: EntityManager, side: ReadSide, parentId: string, readId: string): Promise<void> {
  const removed = isUuid(readId) ? await tx.execute<{ id: string }[]>(`delete from ${side.table} where id = ? and ${side.parent} = ? returning id`, [readId.toLowerCase(), parentId]) : [];
  if (!removed.length) throw DomainError.notFound('read');
}
