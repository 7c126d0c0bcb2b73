import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { User } from '../identity/user.entity.js';
import { userPolicy } from '../identity/user.policy.js';
import { DomainError } from '../shared/errors.js';
import { openStays } from '../animals/stays.js';
import { epcisStep } from '../shared/epcis-step.js';
import { appendEvents, type EventInput, type Subject } from '../shared/events.js';
import { newId } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, lockClientIds, replayCreate } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { findVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { tagsIdentificationSource } from './tag-operations.reader.js';
import { fromStatusesSql } from './tag.rules.js';
import { ANIMAL_FIELDS } from '../animals/animal-fields.js';
import { tagsNotReady } from './tag-sets.js';
import { settleBoxes } from './box-stock.js';
import { settleReservations } from './reservations-used.js';
import { tagsPolicy, workUnit, type WorkUnit } from './tags.policy.js';
import { TagsIdentification } from './tags-identification.entity.js';
import { checkIdentification, tagsOf, type LockedTag, type NewAnimal, type TagsIdentificationCreateInput } from './tags-identification.rules.js';
import { HOLDER_OF_UNIT } from '../places/unit-holder.js';

export const TAGS_IDENTIFICATION_SEARCH: SearchSpec = {
  alias: 'ti',
  exact: { id: 'uuid', control_unit_id: 'uuid', operator_user_id: 'uuid', int_animal_count: 'integer' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  // The record has no name or code of its own: str_query matches its id's text.
  query: ['id::text'],
  computed: {
    establishment_id: { kind: 'uuid', sql: 'ti.control_unit_id in (select cu.id from control_unit cu where cu.establishment_id = ?)' },
    animal_id: { kind: 'uuid', sql: 'ti.id in (select a.tags_identification_id from animal a where a.id = ?)' },
    /** The identification that applied that tag. */
    str_tag_code: { kind: 'text', sql: 'ti.id in (select a.tags_identification_id from tag t join animal a on a.id = t.animal_id where t.str_code = ?)' },
  },
};

const scopeOf = (actor: Actor) => tagsPolicy.unitScope(actor, 'ti.control_unit_id', 'ti');

/** Tags Identification (DOMAIN.md): available or reserved tags of a unit applied to new animals, hundreds per request. */
export class TagsIdentificationService {
  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<TagsIdentification>> {
    return readVisible(db, actor, tagsIdentificationSource, scopeOf(actor), id, 'tags identification', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<TagsIdentification>> {
    return readVisiblePage(db, actor, tagsIdentificationSource, scopeOf(actor), TAGS_IDENTIFICATION_SEARCH, filters, page, options);
  }

  /**
   * POST /api/tags-identifications: all animals or none, in the same number of statements for 5
   * animals as for 500. Replays: the identification's client id, or, without one, animals whose
   * client ids all belong to one identification made from the same body.
   */
  async create(em: EntityManager, actor: Actor, input: TagsIdentificationCreateInput): Promise<TagsIdentification> {
    const animals = checkIdentification(input);
    const work = await workUnit(em, actor, 'to_control_unit_id', input.to_control_unit_id);
    if (input.operator_user_id && !(await findVisible(em, User, '"user" u', userPolicy.scope(actor), input.operator_user_id))) throw DomainError.field('operator_user_id', 'no such user');
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, TagsIdentification, 'tags_identification', 'TagsIdentification', 'TAGS_IDENTIFICATION_CREATED', input.id, hash, (r) => r.control_unit_id === work.unit.id);
        if (replayed) return replayed;
      }
      const replayed = await this.takenOrReplay(tx, animals, hash, input.id ? null : work.unit.id);
      if (replayed) return replayed;
      const tags = tagsOf(animals, await this.lockTags(tx, actor, work, animals));
      const offending = animals.flatMap((a, i) => {
        const t = tags[i]!;
        return t.here && (t.str_status === 'AVAILABLE' || t.str_status === 'RESERVED') ? [] : [{ str_code: t.str_code, str_status: t.here ? t.str_status : null, path: a.path }];
      });
      if (offending.length) throw tagsNotReady('apply', offending);
      return this.identify(tx, actor, work, input, animals, tags, hash);
    });
  }

  /** Client animal ids or rod codes already taken: a CONFLICT naming each path, unless the whole body is a replay (its identification comes back). */
  private async takenOrReplay(tx: EntityManager, animals: NewAnimal[], hash: string, unitId: string | null): Promise<TagsIdentification | null> {
    const ids = animals.filter((a) => a.clientId).map((a) => a.id);
    const rods = animals.map((a) => a.str_rod_code).filter((v): v is string => Boolean(v));
    if (!ids.length && !rods.length) return null;
    // The same animals sent twice at once: the second waits for the first and then replays it.
    await lockClientIds(tx, ids);
    const rows = await tx.execute<{ id: string; str_rod_code: string | null; tags_identification_id: string | null }[]>(
      `select id, str_rod_code, tags_identification_id from animal
        where id in (select value::uuid from jsonb_array_elements_text(?::jsonb)) or str_rod_code in (select value from jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(ids), JSON.stringify(rods)],
    );
    if (!rows.length) return null;
    const byId = new Map(rows.map((r) => [r.id, r]));
    const batches = new Set(animals.map((a) => (a.clientId ? byId.get(a.id)?.tags_identification_id : undefined)));
    if (unitId && batches.size === 1 && [...batches][0]) {
      // Another body under those animal ids is a CONFLICT on each animal's id below, not on the identification's.
      const replayed = await replayCreate(tx, TagsIdentification, 'tags_identification', 'TagsIdentification', 'TAGS_IDENTIFICATION_CREATED', [...batches][0]!, hash, (r) => r.control_unit_id === unitId).catch((e: unknown) => {
        if (e instanceof DomainError && e.code === 'CONFLICT') return null;
        throw e;
      });
      if (replayed) return replayed;
    }
    const rodOwner = new Map(rows.filter((r) => r.str_rod_code).map((r) => [r.str_rod_code!, r.id]));
    const fields: Record<string, string[]> = {};
    for (const a of animals) {
      if (a.clientId && byId.has(a.id)) fields[`${a.path}.id`] = ['is already taken'];
      const owner = a.str_rod_code ? rodOwner.get(a.str_rod_code) : undefined;
      if (owner && owner !== a.id) fields[`${a.path}.str_rod_code`] = ['is already taken'];
    }
    throw new DomainError('CONFLICT', { fields });
  }

  /** The named tags, locked until commit (in id order, so two identifications never deadlock), with whether each is at the unit or seen by the caller. */
  private lockTags(tx: EntityManager, actor: Actor, work: WorkUnit, animals: NewAnimal[]): Promise<LockedTag[]> {
    // An applied tag is where its animal is (Migration0032): the view's place, written here on the locked table.
    const place = 'coalesce(t.last_control_unit_id, (select pa.last_control_unit_id from animal pa where pa.id = t.animal_id))';
    const visible = tagsPolicy.unitScope(actor, place);
    return tx.execute<LockedTag[]>(
      `select t.id, t.str_code, t.str_status, t.tags_box_id, t.tags_reservation_id, coalesce(${place} = ?, false) as here, coalesce(${visible.sql}, false) as visible
         from tag t
        where t.id = any(array[?]::uuid[]) or t.str_code = any(array[?]::text[])
        order by t.id for update of t`,
      // Arrays, not \`in (select … from jsonb)\`: the two index look-ups (BitmapOr) where the hashed
      // subqueries filtered every tag in the table (measured: 83 ms for 500 tags among 40,000).
      [work.unit.id, ...visible.params, animals.flatMap((a) => (a.tag_id ? [a.tag_id] : [])), animals.flatMap((a) => (a.str_tag_code ? [a.str_tag_code] : []))],
    );
  }

  /** Writes the identification, its animals and their tags, then the boxes and reservations the tags leave, and every event. */
  private async identify(tx: EntityManager, actor: Actor, work: WorkUnit, input: TagsIdentificationCreateInput, animals: NewAnimal[], tags: LockedTag[], hash: string): Promise<TagsIdentification> {
    const { unit, establishment } = work;
    const operator = input.operator_user_id ?? actor.userId;
    const [row] = await tx.execute<Record<string, unknown>[]>(
      `insert into tags_identification (id, control_unit_id, operator_user_id, int_animal_count, ts_unsafe_client_created_at) values (?, ?, ?, ?, ?) returning *`,
      [input.id ?? newId(), unit.id, operator, animals.length, input.ts_unsafe_client_created_at ?? null],
    );
    const identification = tx.map(TagsIdentification, row as never);
    // Creation times a microsecond apart keep the body's order in every list ordered by ts_created_at.
    await tx.execute(
      `insert into animal (id, str_species, str_gender, str_socioenvironmental_status, last_control_unit_id, tags_identification_id, current_tag_id, str_name, str_description,
                           str_rod_code, str_extra_tag, ts_born_date, int_age_months_at_identification, int_weight_kilos_at_identification, ts_identified_at,
                           num_longitude, num_latitude, ts_unsafe_client_created_at, ts_created_at, ts_updated_at, holder_organization_id, holder_federative_unit)
       select x.id, x.str_species, x.str_gender, ?, ?, ?, x.tag_id, x.str_name, x.str_description, x.str_rod_code, x.str_extra_tag, x.ts_born_date,
              x.int_age_months_at_identification, x.int_weight_kilos_at_identification, x.ts_identified_at, x.num_longitude, x.num_latitude,
              x.ts_unsafe_client_created_at, now() + x.ord * interval '1 microsecond', now() + x.ord * interval '1 microsecond',
              uh.holder_organization_id, uh.holder_federative_unit
         from jsonb_to_recordset(?::jsonb) as x(id uuid, ord int, tag_id uuid, str_species text, str_gender text, str_name text, str_description text, str_rod_code text,
                                               str_extra_tag text, ts_born_date timestamptz, int_age_months_at_identification int, int_weight_kilos_at_identification int,
                                               ts_identified_at timestamptz, num_longitude float8, num_latitude float8, ts_unsafe_client_created_at timestamptz),
              ${HOLDER_OF_UNIT}`,
      [
        establishment.str_socioenvironmental_status,
        unit.id,
        identification.id,
        JSON.stringify(animals.map((a, ord) => ({ ...a, ord, tag_id: tags[ord]!.id, path: undefined, clientId: undefined }))),
        unit.id,
      ],
    );
    // An applied tag's place and holder are its animal's (Migration0032, Migration0037): NULL here, named by
    // the statement itself so that tag_holder_on_move does not run row by row (40 of the 60 ms of 500 tags).
    await tx.execute(
      `update tag t set str_status = 'APPLIED', animal_id = x.animal_id, tags_reservation_id = null, last_control_unit_id = null,
              holder_organization_id = null, holder_federative_unit = null, ts_updated_at = now()
         from jsonb_to_recordset(?::jsonb) as x(tag_id uuid, animal_id uuid) where t.id = x.tag_id and t.str_status in (${fromStatusesSql('apply')})`,
      [JSON.stringify(animals.map((a, i) => ({ tag_id: tags[i]!.id, animal_id: a.id })))],
    );
    await openStays(tx, animals.map((a) => a.id), { column: 'ts_identified_at' });
    const refs = { organization_id: establishment.organization_id, establishment_id: establishment.id, control_unit_id: unit.id };
    const now = new Date();
    const events: EventInput[] = [
      {
        type: 'TAGS_IDENTIFICATION_CREATED',
        recordType: 'TagsIdentification',
        recordId: identification.id,
        actorId: actor.userId,
        occurredAt: now,
        payload: {
          changes: { int_animal_count: animals.length, operator_user_id: operator, ts_unsafe_client_created_at: input.ts_unsafe_client_created_at?.toISOString() ?? null },
          refs,
          body_hash: hash,
          epcis: epcisStep('commissioning', 'active', [], {}, { control_unit_id: unit.id, establishment_id: establishment.id }),
          listed: {
            Animal: { str_event: 'ANIMAL_IDENTIFIED', changes: { str_status: 'ACTIVE', str_socioenvironmental_status: establishment.str_socioenvironmental_status }, refs: { ...refs, tags_identification_id: identification.id } },
          },
        },
        // Each animal's own: what identification recorded of it, its tag, and when (ts_identified_at).
        subjects: animals.map((a, i): Subject => {
          const tag = tags[i]!;
          const recorded = Object.fromEntries([...ANIMAL_FIELDS, 'ts_identified_at', 'num_longitude', 'num_latitude', 'ts_unsafe_client_created_at'].map((f) => [f, a[f as keyof NewAnimal] ?? null]));
          return {
            recordType: 'Animal',
            recordId: a.id,
            occurredAt: a.ts_identified_at ?? null,
            own: { changes: { ...recorded, current_tag_id: tag.id }, refs: { tag_id: tag.id, str_tag_code: tag.str_code, tags_reservation_id: tag.tags_reservation_id } },
          };
        }),
      },
      ...(await this.boxesAndReservations(tx, actor, tags, refs)),
    ];
    await appendEvents(tx, events);
    return identification;
  }

  /**
   * Boxes whose tags were used become OPENED, or DEPLETED once none of theirs is AVAILABLE or
   * RESERVED; reservations left without tags become USED. One statement each, with their events.
   */
  private async boxesAndReservations(tx: EntityManager, actor: Actor, tags: LockedTag[], refs: Record<string, string>): Promise<EventInput[]> {
    const events: EventInput[] = [];
    if (tags.some((t) => t.tags_box_id)) {
      for (const b of await settleBoxes(tx, tags.map((t) => t.id), new Date())) {
        events.push({ type: `TAGS_BOX_${b.str_status}`, recordType: 'TagsBox', recordId: b.id, actorId: actor.userId, payload: { changes: { str_status: { from: b.previous, to: b.str_status } }, refs } });
      }
    }
    events.push(...(await settleReservations(tx, tags.map((t) => t.tags_reservation_id), actor.userId, refs)));
    return events;
  }
}
