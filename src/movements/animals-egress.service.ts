import type { EntityManager } from '@mikro-orm/postgresql';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { operatorFor, trimmedOrNull } from '../tags/field-work.js';
import { checkReads, EGRESS_READS, removeRead, resolveReads, storeReads, type ReadInput } from './animal-reads.js';
import { AnimalsEgress } from './animals-egress.entity.js';
import { finishEgress, cancelEgress } from './animals-egress.finish.js';
import { checkEgressIds, type AnimalsEgressInput, type AnimalsEgressUpdate } from './animals-egress.input.js';
import { ANIMALS_EGRESS_SEARCH, animalsEgressSource } from './animals-egress.reader.js';
import { gtaPolicy } from './gta.policy.js';
import { movementPolicy, type MovementWork } from './movement.policy.js';
import { lockMovement, markStored } from './movement-records.js';
import { EGRESS_TRANSITIONS } from './movement.rules.js';

const NOUN = 'animals egress';

/**
 * Animals leaving a control unit (DOMAIN.md, "Animal movements"): created OPEN, read at the chute
 * in batches, finished under a GTA (animals IN_TRANSIT), RECEIVED when an ingress takes them in,
 * or CANCELLED (animals back ACTIVE at the origin).
 */
export class AnimalsEgressService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<AnimalsEgress> {
    return mustFindVisible(em, AnimalsEgress, 'animals_egress ae', movementPolicy.egressScope(actor), id.toLowerCase(), NOUN);
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<AnimalsEgress>> {
    return readVisible(db, actor, animalsEgressSource, movementPolicy.egressScope(actor), id, NOUN, include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<AnimalsEgress>> {
    return readVisiblePage(db, actor, animalsEgressSource, movementPolicy.egressScope(actor), ANIMALS_EGRESS_SEARCH, filters, page, options);
  }

  /** POST /api/animals-egress: OPEN at a unit the caller works at, with a first batch of reads when the body has `tags`. */
  async create(em: EntityManager, actor: Actor, input: AnimalsEgressInput): Promise<AnimalsEgress> {
    checkEgressIds(input);
    const work = await movementPolicy.work(em, actor, 'from_control_unit_id', input.from_control_unit_id, 'EGRESS');
    const gtaId = input.gta_id?.toLowerCase() ?? null;
    movementPolicy.checkGta(work, [gtaId]);
    const readingOn = input.bl_move_with_tag_reading ?? work.establishment.bl_move_with_tag_reading;
    const reads = checkReads(EGRESS_READS, input.tags, readingOn);
    const hash = bodyHash({ ...input, id: undefined });
    const id = input.id?.toLowerCase();
    return em.transactional(async (tx) => {
      if (id) {
        const replayed = await replayCreate(tx, AnimalsEgress, 'animals_egress', 'AnimalsEgress', 'ANIMALS_EGRESS_CREATED', id, hash, (r) => r.from_control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      const toId = await destinationOf(tx, input.to_control_unit_id);
      await gtaUsable(tx, actor, work.unit.id, gtaId);
      const operator = await operatorFor(tx, actor, work, input.operator_user_id);
      const egress = tx.create(AnimalsEgress, {
        ...(id ? { id } : {}),
        from_control_unit_id: work.unit.id,
        to_control_unit_id: toId,
        gta_id: gtaId,
        operator_user_id: operator,
        bl_move_with_tag_reading: readingOn,
        str_description: trimmedOrNull(input.str_description),
        str_label: trimmedOrNull(input.str_label),
        str_license_plate: trimmedOrNull(input.str_license_plate)?.toUpperCase() ?? null,
        ts_unsafe_client_created_at: input.ts_unsafe_client_created_at ?? null,
      });
      await tx.persist(egress).flush();
      const created: EventInput = {
        type: 'ANIMALS_EGRESS_CREATED',
        recordType: 'AnimalsEgress',
        recordId: egress.id,
        actorId: actor.userId,
        payload: {
          changes: { str_status: 'OPEN', to_control_unit_id: toId, gta_id: gtaId, bl_move_with_tag_reading: readingOn, str_license_plate: egress.str_license_plate, str_label: egress.str_label },
          refs: refsOf(work, egress),
          body_hash: hash,
        },
      };
      await this.storeBatch(tx, actor, egress, reads, created);
      return egress;
    });
  }

  /** PATCH /api/animals-egress/:id: destination, GTA, plate, label and description while OPEN. */
  async update(em: EntityManager, actor: Actor, id: string, input: AnimalsEgressUpdate): Promise<AnimalsEgress> {
    const visible = await this.get(em, actor, id);
    checkEgressIds({ ...input, from_control_unit_id: visible.from_control_unit_id });
    const work = await movementPolicy.work(em, actor, 'from_control_unit_id', visible.from_control_unit_id, 'EGRESS');
    return em.transactional(async (tx) => {
      const egress = await lockOpen(tx, visible.id, 'change');
      const changes: Record<string, unknown> = {};
      if (input.to_control_unit_id !== undefined) changes.to_control_unit_id = await destinationOf(tx, input.to_control_unit_id);
      if (input.gta_id !== undefined) {
        changes.gta_id = input.gta_id?.toLowerCase() ?? null;
        await gtaUsable(tx, actor, work.unit.id, changes.gta_id as string | null);
      }
      for (const f of ['str_description', 'str_label'] as const) if (input[f] !== undefined) changes[f] = trimmedOrNull(input[f]);
      if (input.str_license_plate !== undefined) changes.str_license_plate = trimmedOrNull(input.str_license_plate)?.toUpperCase() ?? null;
      movementPolicy.checkGta(work, [(changes.gta_id as string | null | undefined) ?? egress.gta_id]);
      Object.assign(egress, changes, { ts_updated_at: new Date() });
      await tx.flush();
      await appendEvents(tx, [{ type: 'ANIMALS_EGRESS_UPDATED', recordType: 'AnimalsEgress', recordId: egress.id, actorId: actor.userId, payload: { changes, refs: refsOf(work, egress) } }]);
      return egress;
    });
  }

  /** POST /api/animals-egress/:id/tags: a batch of reads while OPEN; retried reads (same client id, or the same animal) change nothing. */
  async addReads(em: EntityManager, actor: Actor, id: string, items: ReadInput[] | null | undefined): Promise<AnimalsEgress> {
    const visible = await this.get(em, actor, id);
    const work = await movementPolicy.work(em, actor, 'from_control_unit_id', visible.from_control_unit_id, 'EGRESS');
    movementPolicy.checkGta(work, [visible.gta_id]);
    if (!items?.length) throw DomainError.field('tags', 'must list at least one read');
    const reads = checkReads(EGRESS_READS, items, visible.bl_move_with_tag_reading);
    return em.transactional(async (tx) => {
      const egress = await lockOpen(tx, visible.id, 'take reads');
      await this.storeBatch(tx, actor, egress, reads, null);
      return egress;
    });
  }

  /** DELETE /api/animals-egress/:id/tags/:read_id while OPEN. */
  async removeRead(em: EntityManager, actor: Actor, id: string, readId: string): Promise<AnimalsEgress> {
    const visible = await this.get(em, actor, id);
    const work = await movementPolicy.work(em, actor, 'from_control_unit_id', visible.from_control_unit_id, 'EGRESS');
    movementPolicy.checkGta(work, [visible.gta_id]);
    return em.transactional(async (tx) => {
      const egress = await lockOpen(tx, visible.id, 'drop reads');
      await removeRead(tx, EGRESS_READS, egress.id, readId);
      await refreshCounts(tx, egress);
      await appendEvents(tx, [{ type: 'ANIMALS_EGRESS_READ_REMOVED', recordType: 'AnimalsEgress', recordId: egress.id, actorId: actor.userId, payload: { changes: { int_tag_count: egress.int_tag_count }, refs: { read_id: readId.toLowerCase() } } }]);
      return egress;
    });
  }

  /** POST /api/animals-egress/:id/finish: every rule of DOMAIN.md, then the animals IN_TRANSIT and the GTA IN_USE. */
  async finish(em: EntityManager, actor: Actor, id: string): Promise<AnimalsEgress> {
    const visible = await this.get(em, actor, id);
    const work = await movementPolicy.work(em, actor, 'from_control_unit_id', visible.from_control_unit_id, 'EGRESS');
    movementPolicy.checkGta(work, [visible.gta_id]);
    return em.transactional(async (tx) => finishEgress(tx, actor, await lockState(tx, visible.id, 'finish', EGRESS_TRANSITIONS.finish.from), work));
  }

  /** POST /api/animals-egress/:id/cancel: from OPEN or FINISHED (animals back ACTIVE at the origin). */
  async cancel(em: EntityManager, actor: Actor, id: string): Promise<AnimalsEgress> {
    const visible = await this.get(em, actor, id);
    const work = await movementPolicy.work(em, actor, 'from_control_unit_id', visible.from_control_unit_id, 'EGRESS');
    movementPolicy.checkGta(work, [visible.gta_id]);
    return em.transactional(async (tx) => cancelEgress(tx, actor, await lockState(tx, visible.id, 'be cancelled', EGRESS_TRANSITIONS.cancel.from), work));
  }

  /** Resolves and stores a batch of reads (every code must name a known animal), then the counts and one event. */
  private async storeBatch(tx: EntityManager, actor: Actor, egress: AnimalsEgress, reads: ReturnType<typeof checkReads>, first: EventInput | null): Promise<void> {
    const resolved = await resolveReads(tx, actor, reads);
    const unknown = resolved.filter((r) => !r.animal_id);
    if (unknown.length) {
      throw DomainError.validation(Object.fromEntries(unknown.map((r) => [`tags[${r.idx}]${r.str_tag_code ? '.str_tag_code' : '.str_rod_code'}`, ['no animal carries this code']])));
    }
    const added = await storeReads(tx, EGRESS_READS, egress.id, resolved);
    await refreshCounts(tx, egress);
    const events: EventInput[] = first ? [first] : [];
    if (reads.length) {
      events.push({ type: 'ANIMALS_EGRESS_READ', recordType: 'AnimalsEgress', recordId: egress.id, actorId: actor.userId, payload: { changes: { int_tag_count: egress.int_tag_count, ts_last_read: egress.ts_last_read }, refs: { int_reads: reads.length, int_new: added } } });
    }
    await appendEvents(tx, events);
  }
}

const refsOf = (work: MovementWork, egress: AnimalsEgress) => ({
  organization_id: work.establishment.organization_id,
  from_control_unit_id: egress.from_control_unit_id,
  to_control_unit_id: egress.to_control_unit_id,
  gta_id: egress.gta_id,
});

/** The egress locked for a change that needs it OPEN. */
const lockOpen = (tx: EntityManager, id: string, action: string): Promise<AnimalsEgress> => lockState(tx, id, action, EGRESS_TRANSITIONS.read.from);
const lockState = (tx: EntityManager, id: string, action: string, from: readonly string[]): Promise<AnimalsEgress> => lockMovement(tx, AnimalsEgress, 'animals_egress', id, action, from);

/** The read count and last read time, kept on the record while it is OPEN. */
async function refreshCounts(tx: EntityManager, egress: AnimalsEgress): Promise<void> {
  const [row] = await tx.execute<{ n: number; last: Date | null }[]>(
    `update animals_egress e set int_tag_count = c.n, ts_last_read = c.last, ts_updated_at = now()
       from (select count(*)::int as n, max(coalesce(ts_egress_at, ts_created_at)) as last from animals_egress_tag where animals_egress_id = ?) c
      where e.id = ? returning c.n, c.last`,
    [egress.id, egress.id],
  );
  egress.int_tag_count = row!.n;
  egress.ts_last_read = row!.last ? new Date(row!.last) : null;
  markStored(tx, egress);
}

/** Any existing unit: animals go to other organizations' holdings. */
async function destinationOf(tx: EntityManager, id: string | null | undefined): Promise<string | null> {
  if (!id) return null;
  const to = await tx.findOne(ControlUnit, { id: id.toLowerCase() });
  if (!to) throw DomainError.field('to_control_unit_id', 'no such control unit');
  return to.id;
}

async function gtaUsable(tx: EntityManager, actor: Actor, unitId: string, id: string | null): Promise<void> {
  if (!id) return;
  const usable = gtaPolicy.usable(actor, 'from', unitId);
  const rows = await tx.execute<{ id: string }[]>(`select g.id from gta g where g.id = ? and ${usable.sql}`, [id, ...usable.params]);
  if (!rows.length) throw DomainError.field('gta_id', 'no such GTA');
}
