import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import { newId } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { tagsIngressSource } from './tag-operations.reader.js';
import { TagsEgress } from './tags-egress.entity.js';
import { TagsIngress } from './tags-ingress.entity.js';
import { at, evaluations, ingressSource, type IngressSource, type TagsIngressEvaluateInput, type TagsIngressInput } from './tags-ingress.input.js';
import { evaluateIngress } from './tags-ingress.evaluate.js';
import { tagsPolicy, workUnit, type WorkUnit } from './tags.policy.js';
import { EGRESS_TRANSITIONS, recordStateError, type SupplierBox } from './tags-transfer.rules.js';
import { boxEvents, boxRef, canWorkAt, rowsParam } from './transfer-support.js';
import { operatorFor } from './field-work.js';

export const TAGS_INGRESS_SEARCH: SearchSpec = {
  alias: 'ti',
  exact: { id: 'uuid', str_status: 'text', to_control_unit_id: 'uuid', tags_egress_id: 'uuid', operator_user_id: 'uuid', str_description: 'text', str_label: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_evaluated_at', 'ts_unsafe_client_created_at'],
  query: ['str_description', 'str_label'],
  computed: {
    /** Ingresses that brought this box. */
    tags_box_id: { kind: 'uuid', sql: 'exists (select 1 from tags_ingress_box qb where qb.tags_ingress_id = ti.id and qb.tags_box_id = ?)' },
  },
};

const scopeOf = (actor: Actor) => tagsPolicy.unitScope(actor, 'ti.to_control_unit_id', 'ti');
const text = (v: string | null | undefined): string | null => (typeof v === 'string' ? v.trim() || null : null);

/**
 * Boxes arriving at a control unit (DOMAIN.md, "Tags Ingress"): from a supplier, whose boxes wait
 * IN_TRANSIT at the unit (their codes reserved by the disjoint-range constraint, no tag yet), or
 * from a tags egress addressed to the unit. Evaluation decides each box (tags-ingress.evaluate.ts).
 */
export class TagsIngressService {
  /** The entity, for evaluate. */
  async get(em: EntityManager, actor: Actor, id: string): Promise<TagsIngress> {
    return mustFindVisible(em, TagsIngress, 'tags_ingress ti', scopeOf(actor), id, 'tags ingress');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<TagsIngress>> {
    return readVisible(db, actor, tagsIngressSource, scopeOf(actor), id, 'tags ingress', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsIngress>> {
    return readVisiblePage(db, actor, tagsIngressSource, scopeOf(actor), TAGS_INGRESS_SEARCH, filters, page, options);
  }

  /** POST /api/tags-ingress: field workers of the destination; a client-chosen id makes it replayable. */
  async create(em: EntityManager, actor: Actor, input: TagsIngressInput): Promise<TagsIngress> {
    const source = ingressSource(input);
    const work = await workUnit(em, actor, 'to_control_unit_id', input.to_control_unit_id);
    const hash = bodyHash({ ...input, id: undefined });
    // Stored lower-case whatever the client sent, so the record reads back with the id it was created with.
    const id = input.id?.toLowerCase();
    return em.transactional(async (tx) => {
      if (id) {
        const replayed = await replayCreate(tx, TagsIngress, 'tags_ingress', 'TagsIngress', 'TAGS_INGRESS_CREATED', id, hash, (r) => r.to_control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      const operator = await operatorFor(tx, actor, work, input.operator_user_id);
      const ingress = tx.create(TagsIngress, {
        ...(id ? { id } : {}),
        to_control_unit_id: work.unit.id,
        tags_egress_id: source.kind === 'egress' ? source.tags_egress_id : null,
        operator_user_id: operator,
        str_description: text(input.str_description),
        str_label: text(input.str_label),
        ts_unsafe_client_created_at: input.ts_unsafe_client_created_at ?? null,
      });
      const boxes = source.kind === 'egress' ? await this.takeEgress(tx, actor, work, ingress, source.tags_egress_id) : await this.supplierBoxes(tx, work, ingress, source);
      await appendEvents(tx, [
        {
          type: 'TAGS_INGRESS_CREATED',
          recordType: 'TagsIngress',
          recordId: ingress.id,
          actorId: actor.userId,
          payload: {
            changes: { str_status: 'PENDING', str_source: source.kind === 'egress' ? 'TAGS_EGRESS' : 'SUPPLIER', tags_boxes: boxes.map(boxRef) },
            refs: { organization_id: work.establishment.organization_id, to_control_unit_id: work.unit.id, tags_egress_id: ingress.tags_egress_id, operator_user_id: operator },
            body_hash: hash,
          },
        },
        ...(source.kind === 'supplier'
          ? boxEvents(actor, 'TAGS_BOX_CREATED', boxes.map((b) => ({ id: b.id, changes: { ...boxRef(b), int_quantity: b.int_quantity, str_status: 'IN_TRANSIT', control_unit_id: work.unit.id } })), { tags_ingress_id: ingress.id })
          : []),
      ]);
      return ingress;
    });
  }

  /** POST /api/tags-ingress/:id/evaluate: every box at once, ACCEPTED or REJECTED. */
  async evaluate(em: EntityManager, actor: Actor, id: string, input: TagsIngressEvaluateInput): Promise<TagsIngress> {
    const decisions = evaluations(input);
    const ingress = await this.get(em, actor, id);
    await canWorkAt(em, actor, ingress.to_control_unit_id);
    return em.transactional((tx) => evaluateIngress(tx, actor, ingress.id, decisions));
  }

  /**
   * Supplier boxes wait IN_TRANSIT at the destination: their ranges are taken at once (the
   * exclusion constraint), their tags are made on acceptance. Checks first, naming each box.
   */
  private async supplierBoxes(tx: EntityManager, work: WorkUnit, ingress: TagsIngress, source: Extract<IngressSource, { kind: 'supplier' }>): Promise<(SupplierBox & { id: string })[]> {
    const boxes = source.boxes.map((b) => ({ ...b, id: b.id ?? newId() }));
    const rows = rowsParam(boxes.map((b, idx) => ({ idx, id: b.id, code: b.str_code, lo: b.str_begin, hi: b.str_finish, begin: b.str_begin, finish: b.str_finish, n: b.int_quantity })));
    const clashes = await tx.execute<{ idx: number; kind: string; str_code: string }[]>(
      `with x as (select * from jsonb_to_recordset(?::jsonb) as x(idx int, id uuid, code text, lo bigint, hi bigint, begin text, finish text))
       select x.idx, 'range' as kind, tb.str_code from x join tags_box tb on int8range(tb.str_begin::bigint, tb.str_finish::bigint, '[]') && int8range(x.lo, x.hi, '[]')
       union all
       select x.idx, 'tag', t.str_code from x cross join lateral (select str_code from tag where str_code between x.begin and x.finish order by str_code limit 1) t
       union all
       select x.idx, 'code', tb.str_code from x join tags_box tb on tb.str_code = x.code
       union all
       select x.idx, 'id', tb.str_code from x join tags_box tb on tb.id = x.id`,
      [rows],
    );
    if (clashes.length) {
      const fields: Record<string, string[]> = {};
      for (const c of clashes) {
        const box = boxes[c.idx]!;
        const [name, message] =
          c.kind === 'range' ? ['str_begin', `overlaps the range of box ${c.str_code}`]
          : c.kind === 'tag' ? ['str_begin', `the code ${c.str_code} already exists as a tag`]
          : c.kind === 'code' ? ['str_code', 'is already taken by another box']
          : ['id', 'is already taken by another box'];
        (fields[at(box, name)] ??= []).push(message);
      }
      throw new DomainError('CONFLICT', { fields });
    }
    tx.persist(ingress);
    await tx.flush();
    await tx.execute(
      `with boxes as (
         insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id)
         select x.id, x.code, x.begin, x.finish, x.n, 'IN_TRANSIT', ? from jsonb_to_recordset(?::jsonb) as x(idx int, id uuid, code text, begin text, finish text, n int)
         returning id)
       insert into tags_ingress_box (tags_ingress_id, tags_box_id) select ?, id from boxes`,
      [work.unit.id, rows, ingress.id],
    );
    return boxes;
  }

  /** An egress addressed to this unit, SENT and not being received yet: its boxes become this ingress's. */
  private async takeEgress(tx: EntityManager, actor: Actor, work: WorkUnit, ingress: TagsIngress, egressId: string) {
    const scope = tagsPolicy.eitherUnitScope(actor, 'te.from_control_unit_id', 'te.to_control_unit_id');
    // Locked: a cancel of the egress waits for this ingress, then sees it.
    const rows = await tx.execute<(Record<string, unknown> & { receiving_ingress_id: string | null })[]>(
      `select te.*, (select ti.id from tags_ingress ti where ti.tags_egress_id = te.id) as receiving_ingress_id
         from tags_egress te where te.id = ? and ${scope.sql} for update of te`,
      [egressId, ...scope.params],
    );
    if (!rows[0]) throw DomainError.field('tags_egress_id', 'no such tags egress');
    const { receiving_ingress_id: receiving, ...row } = rows[0];
    const egress = tx.map(TagsEgress, row as never);
    if (!(EGRESS_TRANSITIONS.receive.from as readonly string[]).includes(egress.str_status)) {
      throw recordStateError('the tags egress', egress.str_status, EGRESS_TRANSITIONS.receive.from, `a tags egress ${egress.str_status} cannot be received`);
    }
    if (egress.to_control_unit_id !== work.unit.id) {
      throw new DomainError('RULE_VIOLATED', { rule: 'TAGS_EGRESS_FOR_ANOTHER_UNIT', field: 'tags_egress_id', message: 'the tags egress is addressed to another control unit than to_control_unit_id' });
    }
    if (receiving) throw DomainError.conflict('tags_egress_id', `is already being received by tags ingress ${receiving}`);
    tx.persist(ingress);
    await tx.flush();
    return tx.execute<{ id: string; str_code: string; str_begin: string; str_finish: string; int_quantity: number }[]>(
      `with taken as (insert into tags_ingress_box (tags_ingress_id, tags_box_id) select ?, eb.tags_box_id from tags_egress_box eb where eb.tags_egress_id = ? returning tags_box_id)
       select tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity from taken join tags_box tb on tb.id = taken.tags_box_id order by tb.str_begin`,
      [ingress.id, egress.id],
    );
  }
}
