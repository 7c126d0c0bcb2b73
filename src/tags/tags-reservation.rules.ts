import { DomainError } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { bodyHash } from '../shared/replay.js';
import { Checker } from '../shared/validation.js';
import { MAX_RANGE, isTagCode, rangeSize } from './tag.rules.js';

/** One item of Tags Reservation Create (interface.md), plus the record's str_description and str_label. */
export interface ReservationItemInput {
  id?: string | null;
  control_unit_id?: string | null;
  operator_user_id?: string | null;
  int_quantity?: number | null;
  str_begin?: string | null;
  str_finish?: string | null;
  str_name?: string | null;
  str_description?: string | null;
  str_label?: string | null;
  ts_unsafe_client_created_at?: Date | null;
}

export interface ReservationItem {
  path: string;
  id: string;
  clientId: boolean;
  control_unit_id: string;
  operator_user_id: string | null;
  str_name: string;
  str_description: string | null;
  str_label: string | null;
  /** A range: every code of it must be AVAILABLE at the unit. Null: the int_quantity lowest available codes. */
  str_begin: string | null;
  str_finish: string | null;
  int_quantity: number;
  ts_unsafe_client_created_at: Date | null;
  /** What a replay of this item is compared on. */
  hash: string;
}

/** Reservations one request may carry; their tags together stay within MAX_RANGE. */
export const MAX_RESERVATIONS = 100;

const text = (v: string | null | undefined): string | null => (typeof v === 'string' ? v.trim() || null : null);

/** Checks every item of the body, naming each problem by its path (`reservations[2].str_finish`); returns them ready to write. */
export function checkReservations(items: ReservationItemInput[] | null | undefined): ReservationItem[] {
  const check = new Checker();
  if (!Array.isArray(items) || items.length === 0) throw DomainError.field('reservations', 'is required: at least one reservation');
  if (items.length > MAX_RESERVATIONS) throw DomainError.field('reservations', `must hold at most ${MAX_RESERVATIONS} reservations`);
  const out: ReservationItem[] = [];
  const seenIds = new Map<string, string>();
  items.forEach((item, i) => {
    const path = `reservations[${i}]`;
    const at = (f: string) => `${path}.${f}`;
    if (item.id !== undefined && item.id !== null) {
      if (!isUuid(item.id)) check.add(at('id'), 'must be a uuid');
      else if (seenIds.has(item.id)) check.add(at('id'), `is also the id of ${seenIds.get(item.id)}`);
      else seenIds.set(item.id, path);
    }
    check.required(at('control_unit_id'), item.control_unit_id);
    if (item.control_unit_id) check.when(!isUuid(item.control_unit_id), at('control_unit_id'), 'must be a uuid');
    if (item.operator_user_id) check.when(!isUuid(item.operator_user_id), at('operator_user_id'), 'must be a uuid');
    check.required(at('str_name'), item.str_name);
    const begin = text(item.str_begin);
    const finish = text(item.str_finish);
    const quantity = item.int_quantity ?? null;
    let size: number | null = null;
    if (begin || finish) {
      check.required(at('str_begin'), begin).required(at('str_finish'), finish);
      if (begin) check.when(!isTagCode(begin), at('str_begin'), 'must be a tag code: 15 digits');
      if (finish) check.when(!isTagCode(finish), at('str_finish'), 'must be a tag code: 15 digits');
      if (begin && finish && isTagCode(begin) && isTagCode(finish)) {
        const n = rangeSize(begin, finish);
        if (n < 1n) check.add(at('str_finish'), 'must not be before str_begin');
        else if (n > BigInt(MAX_RANGE)) check.add(at('str_finish'), `the range must hold at most ${MAX_RANGE} codes`);
        else size = Number(n);
      }
      if (quantity !== null && size !== null) check.when(quantity !== size, at('int_quantity'), `must be the size of the range (${size}) when a range is given`);
    } else if (quantity === null) check.add(path, 'give str_begin and str_finish, or int_quantity');
    if (quantity !== null && !(begin || finish)) {
      if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_RANGE) check.add(at('int_quantity'), `must be an integer from 1 to ${MAX_RANGE}`);
      else size = quantity;
    }
    out.push({
      path,
      id: item.id && isUuid(item.id) ? item.id : newId(),
      clientId: Boolean(item.id),
      control_unit_id: item.control_unit_id ?? '',
      operator_user_id: item.operator_user_id ?? null,
      str_name: text(item.str_name) ?? '',
      str_description: text(item.str_description),
      str_label: text(item.str_label),
      str_begin: begin,
      str_finish: finish,
      int_quantity: size ?? 0,
      ts_unsafe_client_created_at: item.ts_unsafe_client_created_at ?? null,
      hash: bodyHash({ ...item, id: undefined }),
    });
  });
  check.throwIfAny();
  const total = out.reduce((n, r) => n + r.int_quantity, 0);
  if (total > MAX_RANGE) throw DomainError.field('reservations', `must reserve at most ${MAX_RANGE} tags in one request (asked for ${total})`);
  overlaps(out);
  return out;
}

/** Two ranges of one request that share codes: the second could never be reserved. */
function overlaps(items: ReservationItem[]): void {
  const ranges = items.filter((r) => r.str_begin).sort((a, b) => a.str_begin!.localeCompare(b.str_begin!));
  const check = new Checker();
  for (let k = 1; k < ranges.length; k++) {
    const [prev, cur] = [ranges[k - 1]!, ranges[k]!];
    if (cur.str_begin! <= prev.str_finish!) check.add(`${cur.path}.str_begin`, `overlaps the range of ${prev.path}`);
  }
  check.throwIfAny();
}
