import type { EntityManager } from '@mikro-orm/postgresql';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { operatorFor, trimmedOrNull } from '../tags/field-work.js';
import { checkReads, INGRESS_READS, removeRead, resolveReads, storeReads, type Read as AnimalRead, type ReadInput } from './animal-reads.js';
import { AnimalsIngress } from './animals-ingress.entity.js';
import { finishIngress } from './animals-ingress.finish.js';
import { checkIngressGtas, checkIngressShape, type AnimalsIngressInput } from './animals-ingress.input.js';
import { ANIMALS_INGRESS_SEARCH, animalsIngressSource } from './animals-ingress.reader.js';
import { lockMovement, markStored } from './movement-records.js';
import { movementPolicy, type MovementWork } from './movement.policy.js';
import { INGRESS_TRANSITIONS } from './movement.rules.js';

const NOUN = 'animals ingress';

const lockState = (tx: EntityManager, id: string, action: string, from: readonly string[]): Promise<AnimalsIngress> => lockMovement(tx, AnimalsIngress, 'animals_ingress', id, action, from);

/**
 * Animals arriving at a control unit under one or more GTAs (DOMAIN.md, "Animal movements"):
 * OPEN, read in batches as they leave the truck, finished by reconciling the reads against what
 * left under those GTAs (RECEIVED or RECEIVED_WITH_DIVERGENCE), or CANCELLED while OPEN.
 */
export class AnimalsIngressService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<AnimalsIngress> {
    return mustFindVisible(em, AnimalsIngress, 'animals_ingress ai', movementPolicy.ingressScope(actor), id.toLowerCase(), NOUN);
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<AnimalsIngress>> {
    return readVisible(db, actor, animalsIngressSource, movementPolicy.ingressScope(actor), id, NOUN, include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<AnimalsIngress>> {
    return readVisiblePage(db, actor, animalsIngressSource, movementPolicy.ingressScope(actor), ANIMALS_INGRESS_SEARCH, filters, page, options);
  }

  /** POST /api/animals-ingress: OPEN at a unit the caller works at (or is invited to receive at), under its GTAs, with a first batch of reads. */
  async create(em: EntityManager, actor: Actor, input: AnimalsIngressInput): Promise<AnimalsIngress> {
    const gtas = checkIngressShape(input);
    const work = await movementPolicy.work(em, actor, 'to_control_unit_id', input.to_control_unit_id, 'INGRESS');
    movementPolicy.checkGta(work, gtas.map((g) => g.gta_id));
    const readingOn = input.bl_move_with_tag_reading ?? work.establishment.bl_move_with_tag_reading;
    const reads = checkReads(INGRESS_READS, input.tags, readingOn);
    const hash = bodyHash({ ...input, id: undefined });
    const id = input.id?.toLowerCase();
    return em.transactional(async (tx) => {
      if (id) {
        const replayed = await replayCreate(tx, AnimalsIngress, 'animals_ingress', 'AnimalsIngress', 'ANIMALS_INGRESS_CREATED', id, hash, (r) => r.to_control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      await checkIngressGtas(tx, actor, work.unit.id, gtas);
      const operator = await operatorFor(tx, actor, work, input.operator_user_id);
      const ingress = tx.create(AnimalsIngress, {
        ...(id ? { id } : {}),
        to_control_unit_id: work.unit.id,
        operator_user_id: operator,
        bl_move_with_tag_reading: readingOn,
        int_animal_count: input.int_animal_count ?? null,
        str_description: trimmedOrNull(input.str_description),
        str_label: trimmedOrNull(input.str_label),
        ts_started_at: input.ts_started_at ?? new Date(),
        ts_unsafe_client_created_at: input.ts_unsafe_client_created_at ?? null,
      });
      await tx.persist(ingress).flush();
      await tx.execute(
        `insert into animals_ingress_gta (id, animals_ingress_id, gta_id, str_license_plate) select x.id, ?, x.gta_id, x.str_license_plate from jsonb_to_recordset(?::jsonb) as x(id uuid, gta_id uuid, str_license_plate text)`,
        [ingress.id, JSON.stringify(gtas)],
      );
      const created: EventInput = {
        type: 'ANIMALS_INGRESS_CREATED',
        recordType: 'AnimalsIngress',
        recordId: ingress.id,
        actorId: actor.userId,
        payload: { changes: { str_status: 'OPEN', bl_move_with_tag_reading: readingOn, int_animal_count: ingress.int_animal_count, gtas }, refs: refsOf(work, ingress), body_hash: hash },
      };
      await storeBatch(tx, actor, ingress, reads, created);
      return ingress;
    });
  }

  /** POST /api/animals-ingress/:id/tags: a batch of reads (and, reading off, the count so far) while OPEN; unknown codes are kept and become external tags on finish. */
  async addReads(em: EntityManager, actor: Actor, id: string, items: ReadInput[] | null | undefined, count?: number | null): Promise<AnimalsIngress> {
    const { visible } = await this.worked(em, actor, id);
    if (!items?.length && (count === undefined || count === null)) throw DomainError.field('tags', 'must list at least one read');
    const reads = checkReads(INGRESS_READS, items, visible.bl_move_with_tag_reading);
    return em.transactional(async (tx) => {
      const ingress = await lockState(tx, visible.id, 'take reads', INGRESS_TRANSITIONS.read.from);
      if (count !== undefined && count !== null) {
        if (!Number.isInteger(count) || count < 0) throw DomainError.field('int_animal_count', 'must be an integer of at least 0');
        ingress.int_animal_count = count;
        await tx.execute('update animals_ingress set int_animal_count = ?, ts_updated_at = now() where id = ?', [count, ingress.id]);
      }
      await storeBatch(tx, actor, ingress, reads, null);
      return ingress;
    });
  }

  /** DELETE /api/animals-ingress/:id/tags/:read_id while OPEN. */
  async removeRead(em: EntityManager, actor: Actor, id: string, readId: string): Promise<AnimalsIngress> {
    const { visible } = await this.worked(em, actor, id);
    return em.transactional(async (tx) => {
      const ingress = await lockState(tx, visible.id, 'drop reads', INGRESS_TRANSITIONS.read.from);
      await removeRead(tx, INGRESS_READS, ingress.id, readId);
      await refreshFirstRead(tx, ingress);
      await appendEvents(tx, [{ type: 'ANIMALS_INGRESS_READ_REMOVED', recordType: 'AnimalsIngress', recordId: ingress.id, actorId: actor.userId, payload: { changes: {}, refs: { read_id: readId.toLowerCase() } } }]);
      return ingress;
    });
  }

  /** POST /api/animals-ingress/:id/finish: the reconciliation (animals-ingress.finish.ts). */
  async finish(em: EntityManager, actor: Actor, id: string): Promise<AnimalsIngress> {
    const { visible, work } = await this.worked(em, actor, id);
    return em.transactional(async (tx) => finishIngress(tx, actor, await lockState(tx, visible.id, 'finish', INGRESS_TRANSITIONS.finish.from), work));
  }

  /** POST /api/animals-ingress/:id/cancel: OPEN → CANCELLED; nothing arrived. */
  async cancel(em: EntityManager, actor: Actor, id: string): Promise<AnimalsIngress> {
    const { visible, work } = await this.worked(em, actor, id);
    return em.transactional(async (tx) => {
      const ingress = await lockState(tx, visible.id, 'be cancelled', INGRESS_TRANSITIONS.cancel.from);
      ingress.str_status = 'CANCELLED';
      ingress.ts_updated_at = new Date();
      await tx.execute('update animals_ingress set str_status = ?, ts_updated_at = ? where id = ?', ['CANCELLED', ingress.ts_updated_at, ingress.id]);
      await appendEvents(tx, [{ type: 'ANIMALS_INGRESS_CANCELLED', recordType: 'AnimalsIngress', recordId: ingress.id, actorId: actor.userId, payload: { changes: { str_status: 'CANCELLED' }, refs: refsOf(work, ingress) } }]);
      return ingress;
    });
  }

  /** The ingress, visible, and the caller working at its unit (restricted invitees: only under their GTA). */
  private async worked(em: EntityManager, actor: Actor, id: string): Promise<{ visible: AnimalsIngress; work: MovementWork }> {
    const visible = await this.get(em, actor, id);
    const work = await movementPolicy.work(em, actor, 'to_control_unit_id', visible.to_control_unit_id, 'INGRESS');
    if (work.onlyGtaId) {
      const gtas = await em.execute<{ gta_id: string }[]>('select gta_id from animals_ingress_gta where animals_ingress_id = ?', [visible.id]);
      movementPolicy.checkGta(work, gtas.map((g) => g.gta_id));
    }
    return { visible, work };
  }
}

export const refsOf = (work: MovementWork, ingress: AnimalsIngress) => ({ organization_id: work.establishment.organization_id, to_control_unit_id: ingress.to_control_unit_id });

async function storeBatch(tx: EntityManager, actor: Actor, ingress: AnimalsIngress, reads: AnimalRead[], first: EventInput | null): Promise<void> {
  const resolved = await resolveReads(tx, actor, reads);
  const added = await storeReads(tx, INGRESS_READS, ingress.id, resolved);
  if (reads.length) await refreshFirstRead(tx, ingress);
  const events: EventInput[] = first ? [first] : [];
  if (reads.length) {
    const unknown = resolved.filter((r) => !r.animal_id).length;
    events.push({ type: 'ANIMALS_INGRESS_READ', recordType: 'AnimalsIngress', recordId: ingress.id, actorId: actor.userId, payload: { changes: { ts_first_read: ingress.ts_first_read }, refs: { int_reads: reads.length, int_new: added, int_unknown: unknown } } });
  }
  await appendEvents(tx, events);
}

async function refreshFirstRead(tx: EntityManager, ingress: AnimalsIngress): Promise<void> {
  const [row] = await tx.execute<{ first: Date | null }[]>(
    `update animals_ingress i set ts_first_read = c.first, ts_updated_at = now()
       from (select min(coalesce(ts_ingress_at, ts_created_at)) as first from animals_ingress_tag where animals_ingress_id = ?) c
      where i.id = ? returning c.first`,
    [ingress.id, ingress.id],
  );
  ingress.ts_first_read = row?.first ? new Date(row.first) : null;
  markStored(tx, ingress);
}
