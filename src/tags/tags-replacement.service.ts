import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { oneOf } from '../places/establishment.rules.js';
import { epcisStep } from '../shared/epcis-step.js';
import { appendEvents } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { tagsReplacementSource } from './tag-operations.reader.js';
import { Checker } from '../shared/validation.js';
import { boxEvents, settleBoxes } from './box-stock.js';
import { settleReservations } from './reservations-used.js';
import { operatorFor, trimmedOrNull } from './field-work.js';
import { REPLACEMENT_REASONS, TAG_TRANSITIONS, tagStateError } from './tag.rules.js';
import { lockTagsAt, tagRef, type LockedTag, type TagRef } from './tag-refs.js';
import { TagsReplacement } from './tags-replacement.entity.js';
import { SET_HOLDER_OF_UNIT } from '../places/unit-holder.js';
import { TAGGABLE_ANIMAL_STATUSES, MAX_TAGS_PER_OPERATION, animalStateError } from './tags-writeoff.rules.js';
import { tagsPolicy, workUnit, type WorkUnit } from './tags.policy.js';

/** One replacement: the applied tag (`tag_id` or `str_tag_code`), the tag that takes its place (`new_tag_id` or `str_new_tag_code`), why. */
export interface TagsReplacementTagInput {
  tag_id?: string | null;
  str_tag_code?: string | null;
  new_tag_id?: string | null;
  str_new_tag_code?: string | null;
  str_reason?: string | null;
}

/** Tags Replacement Create: the body of POST /api/tags-replacements. */
export interface TagsReplacementInput {
  id?: string | null;
  control_unit_id?: string | null;
  operator_user_id?: string | null;
  str_description?: string | null;
  str_label?: string | null;
  tags?: (TagsReplacementTagInput | null)[] | null;
  ts_unsafe_client_created_at?: Date | null;
}

const ITEM = 'exists (select 1 from tags_replacement_tag fx where fx.tags_replacement_id = r.id and';

export const TAGS_REPLACEMENT_SEARCH: SearchSpec = {
  alias: 'r',
  exact: { id: 'uuid', control_unit_id: 'uuid', operator_user_id: 'uuid', str_description: 'text', str_label: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_unsafe_client_created_at'],
  query: ['str_description', 'str_label'],
  computed: {
    establishment_id: { kind: 'uuid', sql: 'r.control_unit_id in (select fcu.id from control_unit fcu where fcu.establishment_id = ?)' },
    animal_id: { kind: 'uuid', sql: `${ITEM} fx.animal_id = ?)` },
    /** The old or the new tag. */
    tag_id: { kind: 'uuid', sql: `${ITEM} ? in (fx.old_tag_id, fx.new_tag_id))` },
    str_tag_code: { kind: 'text', sql: `${ITEM} exists (select 1 from tag ft where ft.id in (fx.old_tag_id, fx.new_tag_id) and ft.str_code = ?))` },
    str_reason: { kind: 'text', sql: `${ITEM} fx.str_reason = ?)` },
  },
};

const scopeOf = (actor: Actor) => tagsPolicy.unitScope(actor, 'r.control_unit_id', 'r');

interface Pair {
  old: LockedTag;
  fresh: LockedTag;
  reason: string;
}

export class TagsReplacementService {
  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<TagsReplacement>> {
    return readVisible(db, actor, tagsReplacementSource, scopeOf(actor), id, 'tags replacement', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsReplacement>> {
    return readVisiblePage(db, actor, tagsReplacementSource, scopeOf(actor), TAGS_REPLACEMENT_SEARCH, filters, page, options);
  }

  /**
   * POST /api/tags-replacements: each applied tag → REPLACED (keeping its animal), the new tag of
   * the same unit → APPLIED on that animal, which keeps its id and history. All or nothing, in a
   * constant number of statements however many animals. A client-chosen id makes it idempotent.
   */
  async create(em: EntityManager, actor: Actor, input: TagsReplacementInput): Promise<TagsReplacement> {
    const { olds, news, reasons } = checkInput(input);
    const work = await workUnit(em, actor, 'control_unit_id', input.control_unit_id);
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, TagsReplacement, 'tags_replacement', 'TagsReplacement', 'TAGS_REPLACEMENT_CREATED', input.id, hash, (r) => r.control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      const operatorId = await operatorFor(tx, actor, work, input.operator_user_id);
      // Old and new in one lock: a tag named twice, even once as old and once as new, is refused.
      const tags = await lockTagsAt(tx, [...olds, ...news], work.unit.id);
      const pairs = olds.map((_, i) => ({ old: tags[i]!, fresh: tags[olds.length + i]!, reason: reasons[i]! }));
      checkPairs(pairs);
      return this.write(tx, actor, work, { id: input.id ?? null, operatorId, input, pairs, hash });
    });
  }

  private async write(
    tx: EntityManager,
    actor: Actor,
    work: WorkUnit,
    r: { id: string | null; operatorId: string; input: TagsReplacementInput; pairs: Pair[]; hash: string },
  ): Promise<TagsReplacement> {
    const now = new Date();
    const unitId = work.unit.id;
    const replacement = tx.create(TagsReplacement, {
      ...(r.id ? { id: r.id } : {}),
      control_unit_id: unitId,
      operator_user_id: r.operatorId,
      str_description: trimmedOrNull(r.input.str_description),
      str_label: trimmedOrNull(r.input.str_label),
      ts_unsafe_client_created_at: r.input.ts_unsafe_client_created_at ?? null,
      ts_created_at: now,
      ts_updated_at: now,
    });
    await tx.persist(replacement).flush();
    const olds = r.pairs.map((p) => p.old.id);
    const news = r.pairs.map((p) => p.fresh.id);
    await tx.execute(
      `insert into tags_replacement_tag (tags_replacement_id, animal_id, old_tag_id, new_tag_id, str_reason)
       select ?, x.animal_id, x.old_tag_id, x.new_tag_id, x.str_reason
         from unnest(array[?]::uuid[], array[?]::uuid[], array[?]::uuid[], array[?]::text[]) as x(animal_id, old_tag_id, new_tag_id, str_reason)`,
      [replacement.id, r.pairs.map((p) => p.old.animal_id), olds, news, r.pairs.map((p) => p.reason)],
    );
    // Old tags first: one APPLIED tag per animal is a unique index, checked row by row.
    // An applied tag is where its animal is (Migration0032): the old one stays here, the new one goes with the animal.
    // Both updates name the holder themselves (the unit's; NULL while applied), so tag_holder_on_move does not run row by row.
    await tx.execute(`update tag set str_status = 'REPLACED', last_control_unit_id = ?, ${SET_HOLDER_OF_UNIT}, ts_updated_at = ? where id = any(array[?]::uuid[])`, [unitId, unitId, now, olds]);
    await tx.execute(
      `update tag t set str_status = 'APPLIED', animal_id = x.animal_id, tags_reservation_id = null, last_control_unit_id = null, holder_organization_id = null, holder_federative_unit = null, ts_updated_at = ?
         from tags_replacement_tag x where x.tags_replacement_id = ? and x.new_tag_id = t.id`,
      [now, replacement.id],
    );
    const moved = await tx.execute<{ id: string }[]>(
      `update animal a set current_tag_id = x.new_tag_id, ts_updated_at = ?
         from tags_replacement_tag x where x.tags_replacement_id = ? and x.animal_id = a.id and a.str_status = 'ACTIVE' and a.last_control_unit_id = ?
       returning a.id`,
      [now, replacement.id, unitId],
    );
    // Another writer moved an animal between the lock on its tag and here.
    if (moved.length !== r.pairs.length) throw animalStateError('a replacement tags animals in ACTIVE at the unit', TAGGABLE_ANIMAL_STATUSES, []);
    const boxes = await settleBoxes(tx, news, now);
    const refs = { organization_id: work.establishment.organization_id, establishment_id: work.establishment.id, control_unit_id: unitId };
    const items = r.pairs.map((p) => ({
      animal_id: p.old.animal_id,
      old_tag_id: p.old.id,
      str_old_tag_code: p.old.str_code,
      new_tag_id: p.fresh.id,
      str_new_tag_code: p.fresh.str_code,
      str_reason: p.reason,
      ...(p.fresh.tags_reservation_id ? { tags_reservation_id: p.fresh.tags_reservation_id } : {}),
    }));
    await appendEvents(tx, [
      {
        type: 'TAGS_REPLACEMENT_CREATED',
        recordType: 'TagsReplacement',
        recordId: replacement.id,
        actorId: actor.userId,
        occurredAt: now,
        payload: {
          changes: {
            str_description: replacement.str_description,
            str_label: replacement.str_label,
            operator_user_id: r.operatorId,
            ts_unsafe_client_created_at: replacement.ts_unsafe_client_created_at,
            int_tag_count: r.pairs.length,
          },
          tags: items,
          refs,
          body_hash: r.hash,
          epcis: epcisStep('replacing', 'active', [], {}, { control_unit_id: unitId, establishment_id: work.establishment.id }),
          listed: { Animal: { str_event: 'ANIMAL_TAG_REPLACED', changes: {}, refs: { ...refs, tags_replacement_id: replacement.id } } },
        },
        subjects: items.map(({ animal_id, ...item }) => ({ recordType: 'Animal', recordId: animal_id!, own: { changes: { current_tag_id: item.new_tag_id }, refs: item } })),
      },
      ...boxEvents(boxes, actor.userId, { ...refs, tags_replacement_id: replacement.id }, now),
      ...(await settleReservations(tx, r.pairs.map((p) => p.fresh.tags_reservation_id), actor.userId, { ...refs, tags_replacement_id: replacement.id }, now)),
    ]);
    return replacement;
  }
}

function checkInput(input: TagsReplacementInput): { olds: TagRef[]; news: TagRef[]; reasons: string[] } {
  const check = new Checker();
  if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  check.required('control_unit_id', input.control_unit_id);
  if (input.control_unit_id) check.when(!isUuid(input.control_unit_id), 'control_unit_id', 'must be a uuid');
  if (input.operator_user_id) check.when(!isUuid(input.operator_user_id), 'operator_user_id', 'must be a uuid');
  const olds: TagRef[] = [];
  const news: TagRef[] = [];
  const reasons: string[] = [];
  const tags = input.tags;
  if (!tags || tags.length === 0) check.add('tags', 'is required: at least one replacement');
  else if (tags.length > MAX_TAGS_PER_OPERATION) check.add('tags', `at most ${MAX_TAGS_PER_OPERATION} replacements in one request`);
  else {
    tags.forEach((t, i) => {
      const path = `tags[${i}]`;
      const old = tagRef(check, path, 'tag_id', 'str_tag_code', t?.tag_id, t?.str_tag_code);
      const fresh = tagRef(check, path, 'new_tag_id', 'str_new_tag_code', t?.new_tag_id, t?.str_new_tag_code);
      const reason = t?.str_reason;
      check.required(`${path}.str_reason`, reason);
      if (reason) check.when(!oneOf(REPLACEMENT_REASONS, reason), `${path}.str_reason`, `must be one of ${REPLACEMENT_REASONS.join(', ')}`);
      if (old && fresh) {
        olds.push(old);
        news.push(fresh);
        reasons.push(reason as string);
      }
    });
  }
  check.throwIfAny();
  return { olds, news, reasons };
}

/** Old tags APPLIED on ACTIVE animals, new ones AVAILABLE or RESERVED. */
function checkPairs(pairs: Pair[]): void {
  const replaceFrom: readonly string[] = TAG_TRANSITIONS.replace.from;
  const notApplied = pairs.filter((p) => !replaceFrom.includes(p.old.str_status)).map((p) => p.old);
  if (notApplied.length) throw tagStateError('replace', notApplied);
  const applyFrom: readonly string[] = TAG_TRANSITIONS.apply.from;
  const unusable = pairs.filter((p) => !applyFrom.includes(p.fresh.str_status)).map((p) => p.fresh);
  if (unusable.length) throw tagStateError('apply', unusable);
  const taggable: readonly string[] = TAGGABLE_ANIMAL_STATUSES;
  const stuck = pairs.filter((p) => !taggable.includes(p.old.str_animal_status ?? '')).map((p) => p.old);
  if (stuck.length) throw animalStateError('a replacement tags animals in ACTIVE', TAGGABLE_ANIMAL_STATUSES, stuck);
}
