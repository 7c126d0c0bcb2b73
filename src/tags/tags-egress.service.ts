import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage, type Scope } from '../shared/scoped-query.js';
import { foldText, type Filters, type SearchSpec } from '../shared/search.js';
import { tagsEgressSource } from './tag-operations.reader.js';
import { fromStatusesSql } from './tag.rules.js';
import { TagsEgress } from './tags-egress.entity.js';
import { egressShape, type TagsEgressInput } from './tags-egress.input.js';
import { tagsPolicy, workUnit } from './tags.policy.js';
import { BOX_TRANSITIONS, EGRESS_TRANSITIONS, recordStateError } from './tags-transfer.rules.js';
import { pickBoxes } from './tags-egress.boxes.js';
import { boxEvents, boxRef, canWorkAt, rowsParam, type BoxRow } from './transfer-support.js';
import { operatorFor } from './field-work.js';

export const TAGS_EGRESS_SEARCH: SearchSpec = {
  alias: 'te',
  exact: { id: 'uuid', str_type: 'text', str_status: 'text', from_control_unit_id: 'uuid', to_control_unit_id: 'uuid', operator_user_id: 'uuid' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_unsafe_client_created_at'],
  // str_query is read by the service: an egress has no name or code of its own, its units do.
  query: [],
  computed: {
    /** Egresses that carried this box. */
    tags_box_id: { kind: 'uuid', sql: 'exists (select 1 from tags_egress_box qb where qb.tags_egress_id = te.id and qb.tags_box_id = ?)' },
  },
};

const scopeOf = (actor: Actor) => tagsPolicy.eitherUnitScope(actor, 'te.from_control_unit_id', 'te.to_control_unit_id');

/**
 * Boxes sent from one control unit to another (DOMAIN.md, "Tags Egress"): SENT → RECEIVED when
 * the destination's ingress is evaluated, or CANCELLED by the origin before that. Seen by both
 * units; the destination may be any unit, another organization's included.
 */
export class TagsEgressService {
  /** The entity, for cancel. */
  async get(em: EntityManager, actor: Actor, id: string): Promise<TagsEgress> {
    return mustFindVisible(em, TagsEgress, 'tags_egress te', scopeOf(actor), id, 'tags egress');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<TagsEgress>> {
    return readVisible(db, actor, tagsEgressSource, scopeOf(actor), id, 'tags egress', include);
  }

  /** str_query matches the codes of the origin and destination units. */
  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsEgress>> {
    const { str_query: query, ...rest } = filters ?? {};
    let scope: Scope = scopeOf(actor);
    if (query !== undefined && query !== null) {
      if (typeof query !== 'string') throw DomainError.field('str_query', 'must be a string');
      if (query.trim()) {
        const needle = `%${foldText(query.trim()).replace(/[\\%_]/g, '\\$&')}%`;
        const sql = 'exists (select 1 from control_unit qcu where qcu.id in (te.from_control_unit_id, te.to_control_unit_id) and lower(qcu.str_code) like ?)';
        scope = { sql: `${scope.sql} and ${sql}`, params: [...scope.params, needle] };
      }
    }
    return readVisiblePage(db, actor, tagsEgressSource, scope, TAGS_EGRESS_SEARCH, rest, page, options);
  }

  /** POST /api/tags-egress: field workers of the origin send boxes IN_STOCK or OPENED there; their AVAILABLE tags go IN_TRANSIT. */
  async create(em: EntityManager, actor: Actor, input: TagsEgressInput): Promise<TagsEgress> {
    const { type, picks } = egressShape(input);
    const work = await workUnit(em, actor, 'from_control_unit_id', input.from_control_unit_id);
    const hash = bodyHash({ ...input, id: undefined });
    // Stored lower-case whatever the client sent, so the record reads back with the id it was created with.
    const id = input.id?.toLowerCase();
    return em.transactional(async (tx) => {
      if (id) {
        const replayed = await replayCreate(tx, TagsEgress, 'tags_egress', 'TagsEgress', 'TAGS_EGRESS_SENT', id, hash, (r) => r.from_control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      // Any existing unit: tags go to other organizations' units too (a return to the supplier's stock, a sale).
      const to = await tx.findOne(ControlUnit, { id: input.to_control_unit_id! });
      if (!to) throw DomainError.field('to_control_unit_id', 'no such control unit');
      const operator = await operatorFor(tx, actor, work, input.operator_user_id);
      const boxes = await pickBoxes(tx, work.unit.id, picks);
      const egress = tx.create(TagsEgress, {
        ...(id ? { id } : {}),
        from_control_unit_id: work.unit.id,
        to_control_unit_id: to.id,
        operator_user_id: operator,
        str_type: type,
        ts_unsafe_client_created_at: input.ts_unsafe_client_created_at ?? null,
      });
      tx.persist(egress);
      await tx.flush();
      const ids = boxes.map((b) => b.id);
      await tx.execute(
        `with sent as (update tags_box set str_status = '${BOX_TRANSITIONS.send.to}', ts_updated_at = now() where id in (?) returning id)
         insert into tags_egress_box (tags_egress_id, tags_box_id, str_box_status)
         select ?, x.id, x.s from jsonb_to_recordset(?::jsonb) as x(id uuid, s text) join sent on sent.id = x.id`,
        [ids, egress.id, rowsParam(boxes.map((b) => ({ id: b.id, s: b.str_status })))],
      );
      // The reservations check again after the move: one made since the boxes were read is not carried away.
      const [moved] = await tx.execute<{ n_reserved: number }[]>(
        `with moved as (update tag set str_status = 'IN_TRANSIT', ts_updated_at = now() where tags_box_id in (?) and last_control_unit_id = ? and str_status in (${fromStatusesSql('send')}) returning id)
         select (select count(*) from moved)::int as n_moved, (select count(*) from tag where tags_box_id in (?) and str_status = 'RESERVED')::int as n_reserved`,
        [ids, work.unit.id, ids],
      );
      if (moved!.n_reserved) throw new DomainError('RULE_VIOLATED', { rule: 'TAGS_BOX_HAS_RESERVED_TAGS', message: 'a box holding RESERVED tags stays: release the reservation first' });
      const refs = { from_control_unit_id: work.unit.id, to_control_unit_id: to.id, tags_egress_id: egress.id };
      await appendEvents(tx, [
        {
          type: 'TAGS_EGRESS_SENT',
          recordType: 'TagsEgress',
          recordId: egress.id,
          actorId: actor.userId,
          payload: {
            changes: { str_status: 'SENT', str_type: type, tags_boxes: boxes.map((b) => ({ ...boxRef(b), str_box_status: b.str_status, int_available: b.int_available })) },
            refs: { ...refs, organization_id: work.establishment.organization_id, operator_user_id: operator },
            body_hash: hash,
          },
        },
        ...boxEvents(actor, 'TAGS_BOX_SENT', boxes.map((b) => ({ id: b.id, changes: { str_status: BOX_TRANSITIONS.send.to } })), refs),
      ]);
      return egress;
    });
  }

  /** POST /api/tags-egress/:id/cancel: SENT → CANCELLED by the origin, before the destination takes it in; boxes and tags back as they were. */
  async cancel(em: EntityManager, actor: Actor, id: string): Promise<TagsEgress> {
    const visible = await this.get(em, actor, id);
    await canWorkAt(em, actor, visible.from_control_unit_id);
    return em.transactional(async (tx) => {
      const rows = await tx.execute<(Record<string, unknown> & { receiving_ingress_id: string | null })[]>(
        `select te.*, (select ti.id from tags_ingress ti where ti.tags_egress_id = te.id) as receiving_ingress_id from tags_egress te where te.id = ? for update of te`,
        [visible.id],
      );
      const { receiving_ingress_id: receiving, ...row } = rows[0]!;
      const egress = tx.map(TagsEgress, row as never);
      if (!(EGRESS_TRANSITIONS.cancel.from as readonly string[]).includes(egress.str_status)) {
        throw recordStateError('the tags egress', egress.str_status, EGRESS_TRANSITIONS.cancel.from, `a tags egress ${egress.str_status} cannot be cancelled`);
      }
      if (receiving) {
        throw new DomainError('RULE_VIOLATED', { rule: 'TAGS_EGRESS_BEING_RECEIVED', tags_ingress_id: receiving, message: 'the destination is receiving this egress (its tags ingress is pending): it can no longer be cancelled' });
      }
      const back = await tx.execute<BoxRow[]>(
        `update tags_box tb set str_status = eb.str_box_status, ts_updated_at = now() from tags_egress_box eb
          where eb.tags_egress_id = ? and eb.tags_box_id = tb.id and tb.str_status = '${BOX_TRANSITIONS.send.to}'
          returning tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.str_status`,
        [egress.id],
      );
      await tx.execute(
        `update tag t set str_status = 'AVAILABLE', ts_updated_at = now() from tags_egress_box eb
          where eb.tags_egress_id = ? and t.tags_box_id = eb.tags_box_id and t.str_status in (${fromStatusesSql('giveBack')})`,
        [egress.id],
      );
      egress.str_status = 'CANCELLED';
      egress.ts_updated_at = new Date();
      await tx.execute('update tags_egress set str_status = ?, ts_updated_at = ? where id = ?', [egress.str_status, egress.ts_updated_at, egress.id]);
      const refs = { from_control_unit_id: egress.from_control_unit_id, to_control_unit_id: egress.to_control_unit_id, tags_egress_id: egress.id };
      await appendEvents(tx, [
        { type: 'TAGS_EGRESS_CANCELLED', recordType: 'TagsEgress', recordId: egress.id, actorId: actor.userId, payload: { changes: { str_status: 'CANCELLED', tags_boxes: back.map(boxRef) }, refs } },
        ...boxEvents(actor, 'TAGS_BOX_RETURNED', back.map((b) => ({ id: b.id, changes: { str_status: b.str_status } })), refs),
      ]);
      return egress;
    });
  }
}
