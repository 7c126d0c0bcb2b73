import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { userPolicy } from '../identity/user.policy.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent, appendEvents } from '../shared/events.js';
import type { PageInput } from '../shared/pagination.js';
import { storedCreates } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { tagsReservationSource } from './tag.reader.js';
import { Checker } from '../shared/validation.js';
import { CODE_RUNS_SQL, tagsNotReady, type CodeRuns, type OffendingTag } from './tag-sets.js';
import { tagsPolicy, workUnit, type WorkUnit } from './tags.policy.js';
import { TagsReservation } from './tags-reservation.entity.js';
import { checkReservations, type ReservationItem, type ReservationItemInput } from './tags-reservation.rules.js';
import { workUnits } from './work-units.js';

export interface TagsReservationCreateInput {
  reservations?: ReservationItemInput[] | null;
}

export const TAGS_RESERVATION_SEARCH: SearchSpec = {
  alias: 'r',
  exact: {
    id: 'uuid',
    control_unit_id: 'uuid',
    operator_user_id: 'uuid',
    str_status: 'text',
    str_name: 'text',
    str_label: 'text',
    str_begin: 'text',
    str_finish: 'text',
    int_quantity: 'integer',
  },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_label', 'str_description'],
  computed: {
    establishment_id: { kind: 'uuid', sql: 'r.control_unit_id in (select cu.id from control_unit cu where cu.establishment_id = ?)' },
    /** The reservation holding that tag now. */
    str_tag_code: { kind: 'text', sql: 'r.id in (select t.tags_reservation_id from tag t where t.str_code = ?)' },
  },
};

const TABLE = 'tags_reservation r';
const scopeOf = (actor: Actor) => tagsPolicy.unitScope(actor, 'r.control_unit_id', 'r');

/** Tags Reservation (DOMAIN.md): available tags of a unit held for an operator, ACTIVE → RELEASED | USED. */
export class TagsReservationService {
  /** The entity, for release. */
  async get(em: EntityManager, actor: Actor, id: string): Promise<TagsReservation> {
    return mustFindVisible(em, TagsReservation, TABLE, scopeOf(actor), id, 'tags reservation');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<TagsReservation>> {
    return readVisible(db, actor, tagsReservationSource, scopeOf(actor), id, 'tags reservation', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsReservation>> {
    return readVisiblePage(db, actor, tagsReservationSource, scopeOf(actor), TAGS_RESERVATION_SEARCH, filters, page, options);
  }

  /**
   * POST /api/tags-reservations: every reservation of the body, all or nothing, in a constant
   * number of statements. An item whose client id is stored with the same body is a replay (it
   * comes back as it is now); with another body, a CONFLICT naming its path.
   */
  async create(em: EntityManager, actor: Actor, input: TagsReservationCreateInput): Promise<TagsReservation[]> {
    const items = checkReservations(input.reservations);
    const units = await workUnits(em, actor, items.map((r) => ({ path: `${r.path}.control_unit_id`, id: r.control_unit_id })));
    await this.checkOperators(em, actor, items);
    for (const r of items) r.operator_user_id ??= actor.userId;
    return em.transactional(async (tx) => {
      const stored = await storedCreates(tx, 'tags_reservation', 'TagsReservation', 'TAGS_RESERVATION_CREATED', items.filter((r) => r.clientId).map((r) => r.id));
      const conflicts: Record<string, string[]> = {};
      for (const r of items) {
        const s = stored.get(r.id);
        if (s && !(s.exists && s.hash === r.hash)) conflicts[`${r.path}.id`] = ['is already taken by a record created with another body'];
      }
      if (Object.keys(conflicts).length) throw new DomainError('CONFLICT', { fields: conflicts });
      const fresh = items.filter((r) => !stored.has(r.id));
      if (fresh.length) await this.reserve(tx, actor, fresh, units);
      const rows = await tx.find(TagsReservation, { id: { $in: items.map((r) => r.id) } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return items.map((r) => byId.get(r.id)!);
    });
  }

  /** POST /api/tags-reservations/:id/release: ACTIVE → RELEASED; its still-reserved tags → AVAILABLE. */
  async release(em: EntityManager, actor: Actor, id: string): Promise<TagsReservation> {
    const reservation = await this.get(em, actor, id);
    const { establishment } = await workUnit(em, actor, 'control_unit_id', reservation.control_unit_id);
    return em.transactional(async (tx) => {
      // Tags first, then the reservation: the order identification locks them in.
      const released = await tx.execute<CodeRuns[]>(
        `with locked as (select id from tag where tags_reservation_id = ? and str_status = 'RESERVED' order by id for update),
              upd as (update tag t set str_status = 'AVAILABLE', tags_reservation_id = null, ts_updated_at = now() from locked where t.id = locked.id
                      returning ?::uuid as id, t.str_code)
         ${CODE_RUNS_SQL}`,
        [id, id],
      );
      const changed = await tx.execute<{ id: string }[]>(`update tags_reservation set str_status = 'RELEASED', ts_updated_at = now() where id = ? and str_status = 'ACTIVE' returning id`, [id]);
      if (!changed.length) {
        const [row] = await tx.execute<{ str_status: string }[]>('select str_status from tags_reservation where id = ?', [id]);
        throw new DomainError('INVALID_STATE', { message: 'only an ACTIVE reservation is released', str_status: row!.str_status, allowed: ['ACTIVE'] });
      }
      await appendEvent(tx, {
        type: 'TAGS_RESERVATION_RELEASED',
        recordType: 'TagsReservation',
        recordId: id,
        actorId: actor.userId,
        payload: {
          changes: { str_status: { from: 'ACTIVE', to: 'RELEASED' }, int_released: released[0]?.n ?? 0, lst_tag_code_ranges: released[0]?.runs ?? [] },
          refs: { organization_id: establishment.organization_id, establishment_id: establishment.id, control_unit_id: reservation.control_unit_id },
        },
      });
      reservation.str_status = 'RELEASED';
      reservation.ts_updated_at = new Date();
      return reservation;
    });
  }

  /** Operators the reservations are held for: users the caller sees (itself or members of its organization), one statement. */
  private async checkOperators(em: EntityManager, actor: Actor, items: ReservationItem[]): Promise<void> {
    const ids = [...new Set(items.map((r) => r.operator_user_id).filter((v): v is string => v !== null))];
    if (!ids.length) return;
    const scope = userPolicy.scope(actor);
    const rows = await em.execute<{ id: string }[]>(`select u.id from "user" u where u.id in (select value::uuid from jsonb_array_elements_text(?::jsonb)) and ${scope.sql}`, [JSON.stringify(ids), ...scope.params]);
    const seen = new Set(rows.map((r) => r.id));
    const check = new Checker();
    for (const r of items) if (r.operator_user_id && !seen.has(r.operator_user_id)) check.add(`${r.path}.operator_user_id`, 'no such user');
    check.throwIfAny();
  }

  /** Inserts the reservations, reserves their tags (ranges first, then the lowest codes by quantity), refuses any shortfall, appends the events. */
  private async reserve(tx: EntityManager, actor: Actor, items: ReservationItem[], units: Map<string, WorkUnit>): Promise<void> {
    await tx.execute(
      `insert into tags_reservation (id, control_unit_id, operator_user_id, str_name, str_description, str_label, str_begin, str_finish, int_quantity, ts_unsafe_client_created_at)
       select x.id, x.control_unit_id, x.operator_user_id, x.str_name, x.str_description, x.str_label, x.str_begin, x.str_finish, x.int_quantity, x.ts_unsafe_client_created_at
         from jsonb_to_recordset(?::jsonb) as x(id uuid, control_unit_id uuid, operator_user_id uuid, str_name text, str_description text, str_label text,
                                               str_begin text, str_finish text, int_quantity int, ts_unsafe_client_created_at timestamptz)`,
      [JSON.stringify(items.map((r) => ({ id: r.id, ...columnsOf(r) })))],
    );
    const ranged = items.filter((r) => r.str_begin);
    const counted = items.filter((r) => !r.str_begin);
    const reserved = new Map<string, CodeRuns>();
    if (ranged.length) {
      const rows = await tx.execute<CodeRuns[]>(
        `with x as (select * from jsonb_to_recordset(?::jsonb) as x(id uuid, unit uuid, b text, f text)),
              upd as (update tag t set str_status = 'RESERVED', tags_reservation_id = x.id, ts_updated_at = now() from x
                       where t.last_control_unit_id = x.unit and t.str_status = 'AVAILABLE' and t.str_code between x.b and x.f
                      returning x.id, t.str_code)
         ${CODE_RUNS_SQL}`,
        [JSON.stringify(ranged.map((r) => ({ id: r.id, unit: r.control_unit_id, b: r.str_begin, f: r.str_finish })))],
      );
      for (const r of rows) reserved.set(r.id, r);
      const short = ranged.filter((r) => (reserved.get(r.id)?.n ?? 0) !== r.int_quantity);
      if (short.length) {
        const { listed, total } = await this.offending(tx, short);
        throw tagsNotReady('reserve', listed, total);
      }
    }
    if (counted.length) {
      // Each unit's lowest available codes are handed out in body order: a unit's k-th item takes the rows after those of the items before it.
      // Locked as picked, skipping those another reservation holds: parallel reservations at one unit take the next free codes instead of the same ones.
      const rows = await tx.execute<CodeRuns[]>(
        `with x as (select * from jsonb_to_recordset(?::jsonb) as x(id uuid, unit uuid, qty int, ord int)),
              wanted as (select id, unit, qty, coalesce(sum(qty) over (partition by unit order by ord rows between unbounded preceding and 1 preceding), 0) as start from x),
              totals as (select unit, sum(qty)::int as total from x group by unit),
              lowest as (select p.id, totals.unit, row_number() over (partition by totals.unit order by p.str_code) as rn
                           from totals cross join lateral (select t.id, t.str_code from tag t where t.last_control_unit_id = totals.unit and t.str_status = 'AVAILABLE'
                                                           order by t.str_code limit totals.total for update of t skip locked) p),
              upd as (update tag t set str_status = 'RESERVED', tags_reservation_id = w.id, ts_updated_at = now()
                        from lowest l join wanted w on w.unit = l.unit and l.rn > w.start and l.rn <= w.start + w.qty
                       where t.id = l.id and t.str_status = 'AVAILABLE'
                      returning w.id, t.str_code)
         ${CODE_RUNS_SQL}`,
        [JSON.stringify(counted.map((r, ord) => ({ id: r.id, unit: r.control_unit_id, qty: r.int_quantity, ord })))],
      );
      for (const r of rows) reserved.set(r.id, r);
      const short = counted.filter((r) => (reserved.get(r.id)?.n ?? 0) < r.int_quantity);
      if (short.length) throw notEnough(short, counted, reserved, units);
    }
    await appendEvents(
      tx,
      items.map((r) => {
        const { establishment } = units.get(r.control_unit_id)!;
        return {
          type: 'TAGS_RESERVATION_CREATED',
          recordType: 'TagsReservation',
          recordId: r.id,
          actorId: actor.userId,
          payload: {
            changes: {
              ...columnsOf(r),
              lst_tag_code_ranges: reserved.get(r.id)?.runs ?? [],
            },
            refs: { organization_id: establishment.organization_id, establishment_id: establishment.id, control_unit_id: r.control_unit_id },
            body_hash: r.hash,
          },
        };
      }),
    );
  }

  /** The codes of short ranges that this request could not reserve: missing, elsewhere, or not AVAILABLE (one statement, at most 50 listed). */
  private async offending(tx: EntityManager, short: ReservationItem[]): Promise<{ listed: OffendingTag[]; total: number }> {
    const rows = await tx.execute<{ path: string; str_code: string; str_status: string | null; total: number }[]>(
      `select x.path, c.code as str_code, case when t.last_control_unit_id = x.unit then t.str_status end as str_status, count(*) over ()::int as total
         from jsonb_to_recordset(?::jsonb) as x(id uuid, unit uuid, b text, f text, path text, ord int)
         cross join lateral (select lpad(g::text, 15, '0') as code from generate_series(x.b::bigint, x.f::bigint) g) c
         left join tag_with_place t on t.str_code = c.code
        where t.tags_reservation_id is distinct from x.id
        order by x.ord, c.code limit 50`,
      [JSON.stringify(short.map((r, ord) => ({ id: r.id, unit: r.control_unit_id, b: r.str_begin, f: r.str_finish, path: r.path, ord })))],
    );
    return { listed: rows.map((r) => ({ str_code: r.str_code, str_status: r.str_status, path: r.path })), total: rows[0]?.total ?? 0 };
  }
}

/** What a reservation row stores of its item (and its created event records). */
const columnsOf = (r: ReservationItem) => ({
  control_unit_id: r.control_unit_id,
  operator_user_id: r.operator_user_id,
  str_name: r.str_name,
  str_description: r.str_description,
  str_label: r.str_label,
  str_begin: r.str_begin,
  str_finish: r.str_finish,
  int_quantity: r.int_quantity,
  ts_unsafe_client_created_at: r.ts_unsafe_client_created_at,
});

/** RULE_VIOLATED when a unit has fewer available tags than its reservations by quantity ask for. */
function notEnough(short: ReservationItem[], counted: ReservationItem[], reserved: Map<string, CodeRuns>, units: Map<string, WorkUnit>): DomainError {
  const available = (unit: string) => counted.filter((r) => r.control_unit_id === unit).reduce((n, r) => n + (reserved.get(r.id)?.n ?? 0), 0);
  return new DomainError('RULE_VIOLATED', {
    rule: 'ENOUGH_AVAILABLE_TAGS',
    message: 'a reservation by quantity takes the lowest AVAILABLE codes of its control unit, and there are fewer than it asks for',
    reservations: short.map((r) => ({
      path: r.path,
      control_unit_id: r.control_unit_id,
      str_control_unit_code: units.get(r.control_unit_id)!.unit.str_code,
      int_quantity: r.int_quantity,
      int_available: available(r.control_unit_id),
    })),
  });
}
