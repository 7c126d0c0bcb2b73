import { groupedBy, read, type Include, type Related, type Source, type ToOne } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { userSource } from '../identity/user.reader.js';
import { controlUnitSource } from '../places/control-unit.reader.js';
import type { Tag } from './tag.entity.js';
import { tagSource } from './tag.reader.js';
import type { BoxRow } from './transfer-support.js';

/** A record names the unit where it happened, read past every policy (its establishment's name too, through the unit's `any_establishment`). */
const unitAt = (fk: string): ToOne => ({ loader: 'unrestrictedControlUnitById', target: () => controlUnitSource, fk });
const operator: ToOne = { loader: 'userById', target: () => userSource, fk: 'operator_user_id' };

// The tag operations as the read side sees them: aliases are those of their policies' scopes and search specs.

export const tagsIngressSource: Source = { table: 'tags_ingress', alias: 'ti', relations: { to_control_unit: unitAt('to_control_unit_id') } };

export const tagsEgressSource: Source = {
  table: 'tags_egress',
  alias: 'te',
  relations: { from_control_unit: unitAt('from_control_unit_id'), to_control_unit: unitAt('to_control_unit_id') },
};

export const tagsIdentificationSource: Source = { table: 'tags_identification', alias: 'ti', relations: { control_unit: unitAt('control_unit_id') } };

export const tagsReplacementSource: Source = { table: 'tags_replacement', alias: 'r', relations: { control_unit: unitAt('control_unit_id'), operator_user: operator } };

export const tagsWriteoffSource: Source = { table: 'tags_writeoff', alias: 'w', relations: { control_unit: unitAt('control_unit_id'), operator_user: operator } };

/**
 * A box as an ingress or an egress lists it. For an ingress `str_status` is the evaluation
 * (PENDING, ACCEPTED, REJECTED) and `str_box_status` the box now; for an egress `str_status` is
 * the box now and `str_box_status` the box before it left.
 */
export type OperationBoxRow = Omit<BoxRow, 'control_unit_id'> & { str_box_status: string };

/** Each parent's items in the order of the parents' ids, and the joined rows that prime the request's loaders. */
export interface Grouped<R> {
  groups: R[][];
  related: Related[];
}

export interface ReplacementItem {
  tags_replacement_id: string;
  animal_id: string;
  old_tag_id: string;
  new_tag_id: string;
  str_reason: string;
}

// The tag operations' relations, one statement per request and relation: the caller already sees the records they hang from.

export async function boxesOfIngresses(db: Db, ids: readonly string[]): Promise<OperationBoxRow[][]> {
  const rows = await db.rows<OperationBoxRow & { tags_ingress_id: string }>({
    sql: `select ib.tags_ingress_id, tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity, ib.str_status, tb.str_status as str_box_status
            from tags_ingress_box ib join tags_box tb on tb.id = ib.tags_box_id where ib.tags_ingress_id = any(?) order by tb.str_begin`,
    params: [ids],
  });
  return groupedBy(ids, rows, (r) => r.tags_ingress_id);
}

export async function boxesOfEgresses(db: Db, ids: readonly string[]): Promise<OperationBoxRow[][]> {
  const rows = await db.rows<OperationBoxRow & { tags_egress_id: string }>({
    sql: `select eb.tags_egress_id, tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity, tb.str_status, eb.str_box_status
            from tags_egress_box eb join tags_box tb on tb.id = eb.tags_box_id where eb.tags_egress_id = any(?) order by tb.str_begin`,
    params: [ids],
  });
  return groupedBy(ids, rows, (r) => r.tags_egress_id);
}

export type WriteoffTagRow = Tag & { tags_writeoff_id: string };

/** A tag as a writeoff lists it, with the writeoff that took it: a tag is written off once (tags_writeoff_tag_once), so that is one lookup. */
const writeoffTagSource: Source = {
  ...tagSource,
  columns: 't.*, (select x.tags_writeoff_id from tags_writeoff_tag x where x.tag_id = t.id) as tags_writeoff_id',
};

/** By code, with the relations the query selects under them. */
export async function tagsOfWriteoffs(db: Db, actor: Actor, ids: readonly string[], include: Include): Promise<Grouped<WriteoffTagRow>> {
  const { rows, related } = await read<WriteoffTagRow>(db, actor, writeoffTagSource, {
    where: { sql: 't.id in (select x.tag_id from tags_writeoff_tag x where x.tags_writeoff_id = any(?))', params: [ids] },
    orderBy: (a) => `${a}.str_code`,
    include,
  });
  return { groups: groupedBy(ids, rows, (r) => r.tags_writeoff_id), related };
}

/** One animal of a replacement: its old and new tags are joined when the query selects them. */
const tagsReplacementTagSource: Source = {
  table: 'tags_replacement_tag',
  alias: 'x',
  relations: {
    old_tag: { loader: 'tagById', target: () => tagSource, fk: 'old_tag_id' },
    new_tag: { loader: 'tagById', target: () => tagSource, fk: 'new_tag_id' },
  },
};

/** The animals, old and new tags of each replacement, by old code. */
export async function itemsOfReplacements(db: Db, actor: Actor, ids: readonly string[], include: Include): Promise<Grouped<ReplacementItem>> {
  const { rows, related } = await read<ReplacementItem>(db, actor, tagsReplacementTagSource, {
    where: { sql: 'x.tags_replacement_id = any(?)', params: [ids] },
    orderBy: (a) => `(select o.str_code from tag o where o.id = ${a}.old_tag_id)`,
    include,
  });
  return { groups: groupedBy(ids, rows, (r) => r.tags_replacement_id), related };
}
