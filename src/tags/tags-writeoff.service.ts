import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { oneOf } from '../places/establishment.rules.js';
import { closeStays } from '../animals/stays.js';
import { epcisStep } from '../shared/epcis-step.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { tagsWriteoffSource } from './tag-operations.reader.js';
import { Checker } from '../shared/validation.js';
import { boxEvents, settleBoxes } from './box-stock.js';
import { settleReservations } from './reservations-used.js';
import { operatorFor, trimmedOrNull } from './field-work.js';
import { TAG_TRANSITIONS, WRITEOFF_REASONS, tagStateError, type WriteoffReason } from './tag.rules.js';
import { lockTagsAt, tagRef, type LockedTag, type TagRef } from './tag-refs.js';
import { TagsWriteoff } from './tags-writeoff.entity.js';
import {
  ANIMAL_END_EVENT,
  ENDABLE_ANIMAL_STATUSES,
  MAX_TAGS_PER_OPERATION,
  WRITEOFF_REASON_STATUSES,
  animalEndFor,
  animalStateError,
  needsDescription,
  reasonMismatch,
} from './tags-writeoff.rules.js';
import { tagsPolicy, workUnit, type WorkUnit } from './tags.policy.js';

/** A tag to write off: `{id}` or `{str_code}`. */
export interface TagsWriteoffTagInput {
  id?: string | null;
  str_code?: string | null;
}

/** Tags Writeoff Create: the body of POST /api/tags-writeoffs. */
export interface TagsWriteoffInput {
  id?: string | null;
  control_unit_id?: string | null;
  operator_user_id?: string | null;
  str_reason?: string | null;
  str_reason_description?: string | null;
  tags?: (TagsWriteoffTagInput | null)[] | null;
  ts_unsafe_client_created_at?: Date | null;
}

export const TAGS_WRITEOFF_SEARCH: SearchSpec = {
  alias: 'w',
  exact: { id: 'uuid', control_unit_id: 'uuid', operator_user_id: 'uuid', str_reason: 'text', str_reason_description: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_unsafe_client_created_at'],
  query: ['str_reason', 'str_reason_description'],
  computed: {
    establishment_id: { kind: 'uuid', sql: 'w.control_unit_id in (select fcu.id from control_unit fcu where fcu.establishment_id = ?)' },
    tag_id: { kind: 'uuid', sql: 'exists (select 1 from tags_writeoff_tag fx where fx.tags_writeoff_id = w.id and fx.tag_id = ?)' },
    str_tag_code: { kind: 'text', sql: 'exists (select 1 from tags_writeoff_tag fx join tag ft on ft.id = fx.tag_id where fx.tags_writeoff_id = w.id and ft.str_code = ?)' },
    animal_id: { kind: 'uuid', sql: 'exists (select 1 from tags_writeoff_tag fx where fx.tags_writeoff_id = w.id and fx.animal_id = ?)' },
  },
};

const scopeOf = (actor: Actor) => tagsPolicy.unitScope(actor, 'w.control_unit_id', 'w');

export class TagsWriteoffService {
  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<TagsWriteoff>> {
    return readVisible(db, actor, tagsWriteoffSource, scopeOf(actor), id, 'tags writeoff', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsWriteoff>> {
    return readVisiblePage(db, actor, tagsWriteoffSource, scopeOf(actor), TAGS_WRITEOFF_SEARCH, filters, page, options);
  }

  /**
   * POST /api/tags-writeoffs: tags of one unit → WRITTEN_OFF, all or nothing, in a constant number
   * of statements however many tags. Applied tags go only with their animals (death, slaughter,
   * export), which end. A client-chosen id makes it idempotent.
   */
  async create(em: EntityManager, actor: Actor, input: TagsWriteoffInput): Promise<TagsWriteoff> {
    const { reason, refs } = checkInput(input);
    const work = await workUnit(em, actor, 'control_unit_id', input.control_unit_id);
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, TagsWriteoff, 'tags_writeoff', 'TagsWriteoff', 'TAGS_WRITEOFF_CREATED', input.id, hash, (r) => r.control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      const operatorId = await operatorFor(tx, actor, work, input.operator_user_id);
      const tags = await lockTagsAt(tx, refs, work.unit.id);
      checkTags(reason, tags);
      return this.write(tx, actor, work, { id: input.id ?? null, operatorId, reason, input, tags, hash });
    });
  }

  private async write(
    tx: EntityManager,
    actor: Actor,
    work: WorkUnit,
    w: { id: string | null; operatorId: string; reason: WriteoffReason; input: TagsWriteoffInput; tags: LockedTag[]; hash: string },
  ): Promise<TagsWriteoff> {
    const now = new Date();
    const unitId = work.unit.id;
    const writeoff = tx.create(TagsWriteoff, {
      ...(w.id ? { id: w.id } : {}),
      control_unit_id: unitId,
      operator_user_id: w.operatorId,
      str_reason: w.reason,
      str_reason_description: trimmedOrNull(w.input.str_reason_description),
      ts_unsafe_client_created_at: w.input.ts_unsafe_client_created_at ?? null,
      ts_created_at: now,
      ts_updated_at: now,
    });
    await tx.persist(writeoff).flush();
    const ids = w.tags.map((t) => t.id);
    await tx.execute(
      `insert into tags_writeoff_tag (tags_writeoff_id, tag_id, animal_id, str_previous_status)
       select ?, t.id, case when t.str_status = 'APPLIED' then t.animal_id end, t.str_status from tag t where t.id = any(array[?]::uuid[])`,
      [writeoff.id, ids],
    );
    // A reserved tag leaves its reservation: only RESERVED tags carry one (a check constraint). An
    // applied tag was where its animal is (Migration0032): written off, it stays here.
    await tx.execute(
      `update tag set str_status = 'WRITTEN_OFF', str_writeoff_reason = ?, ts_writeoff_at = ?, tags_reservation_id = null, last_control_unit_id = ?, ts_updated_at = ? where id = any(array[?]::uuid[])`,
      [w.reason, now, unitId, now, ids],
    );
    const end = animalEndFor(w.reason);
    const applied = w.tags.filter((t) => t.str_status === 'APPLIED');
    if (end && applied.length) {
      const ended = await tx.execute<{ id: string }[]>(
        `update animal set str_status = ?, ts_ended_at = ?, ts_updated_at = ? where id = any(array[?]::uuid[]) and str_status = 'ACTIVE' and last_control_unit_id = ? returning id`,
        [end, now, now, applied.map((t) => t.animal_id), unitId],
      );
      // Another writer moved an animal between the lock on its tag and here.
      if (ended.length !== applied.length) throw animalStateError(`${w.reason} ends animals in ACTIVE at the unit`, ENDABLE_ANIMAL_STATUSES, []);
      await closeStays(tx, ended.map((r) => r.id), now);
    }
    const boxes = await settleBoxes(tx, ids, now);
    const refs = { organization_id: work.establishment.organization_id, establishment_id: work.establishment.id, control_unit_id: unitId };
    const events: EventInput[] = [
      {
        type: 'TAGS_WRITEOFF_CREATED',
        recordType: 'TagsWriteoff',
        recordId: writeoff.id,
        actorId: actor.userId,
        occurredAt: now,
        payload: {
          changes: {
            str_reason: writeoff.str_reason,
            str_reason_description: writeoff.str_reason_description,
            operator_user_id: w.operatorId,
            ts_unsafe_client_created_at: writeoff.ts_unsafe_client_created_at,
            int_tag_count: w.tags.length,
          },
          tags: w.tags.map((t) => ({
            id: t.id,
            str_code: t.str_code,
            str_previous_status: t.str_status,
            ...(t.str_status === 'APPLIED' ? { animal_id: t.animal_id } : {}),
            ...(t.tags_reservation_id ? { tags_reservation_id: t.tags_reservation_id } : {}),
          })),
          refs,
          body_hash: w.hash,
          ...(end && applied.length
            ? {
                epcis: epcisStep(end === 'SLAUGHTERED' ? 'killing' : 'decommissioning', 'inactive', [], {}, { control_unit_id: unitId, establishment_id: work.establishment.id }),
                listed: { Animal: { str_event: ANIMAL_END_EVENT[end], changes: { str_status: end, ts_ended_at: now }, refs: { ...refs, tags_writeoff_id: writeoff.id, str_reason: w.reason } } },
              }
            : {}),
        },
        subjects: end ? applied.map((t) => ({ recordType: 'Animal', recordId: t.animal_id!, own: { refs: { tag_id: t.id, str_tag_code: t.str_code } } })) : [],
      },
      ...boxEvents(boxes, actor.userId, { ...refs, tags_writeoff_id: writeoff.id }, now),
      ...(await settleReservations(tx, w.tags.map((t) => t.tags_reservation_id), actor.userId, { ...refs, tags_writeoff_id: writeoff.id }, now)),
    ];
    await appendEvents(tx, events);
    return writeoff;
  }
}

function checkInput(input: TagsWriteoffInput): { reason: WriteoffReason; refs: TagRef[] } {
  const check = new Checker();
  if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  check.required('control_unit_id', input.control_unit_id);
  if (input.control_unit_id) check.when(!isUuid(input.control_unit_id), 'control_unit_id', 'must be a uuid');
  if (input.operator_user_id) check.when(!isUuid(input.operator_user_id), 'operator_user_id', 'must be a uuid');
  check.required('str_reason', input.str_reason);
  const reason = input.str_reason;
  if (reason) check.when(!oneOf(WRITEOFF_REASONS, reason), 'str_reason', `must be one of ${WRITEOFF_REASONS.join(', ')}`);
  if (oneOf(WRITEOFF_REASONS, reason) && needsDescription(reason)) {
    check.when(!trimmedOrNull(input.str_reason_description), 'str_reason_description', 'is required when str_reason is OTHER');
  }
  const refs: TagRef[] = [];
  const tags = input.tags;
  if (!tags || tags.length === 0) check.add('tags', 'is required: at least one tag');
  else if (tags.length > MAX_TAGS_PER_OPERATION) check.add('tags', `at most ${MAX_TAGS_PER_OPERATION} tags in one writeoff`);
  else {
    tags.forEach((t, i) => {
      const ref = tagRef(check, `tags[${i}]`, 'id', 'str_code', t?.id, t?.str_code);
      if (ref) refs.push(ref);
    });
  }
  check.throwIfAny();
  return { reason: reason as WriteoffReason, refs };
}

/** Every tag in a status writeoff starts from, fitting the reason; the animals of applied ones ACTIVE. */
function checkTags(reason: WriteoffReason, tags: LockedTag[]): void {
  const from: readonly string[] = TAG_TRANSITIONS.writeOff.from;
  const wrongState = tags.filter((t) => !from.includes(t.str_status));
  if (wrongState.length) throw tagStateError('writeOff', wrongState);
  const fits: readonly string[] = WRITEOFF_REASON_STATUSES[reason];
  const misfits = tags.filter((t) => !fits.includes(t.str_status));
  if (misfits.length) throw reasonMismatch(reason, misfits);
  const endable: readonly string[] = ENDABLE_ANIMAL_STATUSES;
  const stuck = tags.filter((t) => t.str_status === 'APPLIED' && !endable.includes(t.str_animal_status ?? ''));
  if (stuck.length) throw animalStateError(`${reason} ends animals in ${ENDABLE_ANIMAL_STATUSES.join(' or ')}`, ENDABLE_ANIMAL_STATUSES, stuck);
}
