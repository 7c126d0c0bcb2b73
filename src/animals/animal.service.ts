import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { recordHistory, type HistoryEntry } from '../shared/history.js';
import type { PageInput, Paged } from '../shared/pagination.js';
import type { Include, Pick } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { animalScope, animalSource } from './animal.reader.js';
import type { SearchSpec } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { workUnit } from '../tags/tags.policy.js';
import { ANIMAL_FIELDS, animalFields, type AnimalFieldsInput } from './animal-fields.js';
import { Animal } from './animal.entity.js';

export const ANIMAL_SEARCH: SearchSpec = {
  alias: 'a',
  exact: {
    id: 'uuid',
    current_tag_id: 'uuid',
    last_control_unit_id: 'uuid',
    tags_identification_id: 'uuid',
    str_rod_code: 'text',
    str_extra_tag: 'text',
    str_name: 'text',
    str_status: 'text',
    str_species: 'text',
    str_gender: 'text',
    str_socioenvironmental_status: 'text',
  },
  ranges: ['ts_born_date', 'ts_identified_at', 'ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_rod_code', 'str_extra_tag'],
  computed: {
    /** Any tag it ever carried (a replaced one included): tags keep their animal for life. */
    str_tag_code: { kind: 'text', sql: 'a.id in (select t.animal_id from tag t where t.str_code = ?)' },
    establishment_id: { kind: 'uuid', sql: 'a.last_control_unit_id in (select cu.id from control_unit cu where cu.establishment_id = ?)' },
  },
};

const TABLE = 'animal a';

/** Animals are seen where their last control unit is seen, and corrected by those who work there. */
export class AnimalService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<Animal> {
    return mustFindVisible(em, Animal, TABLE, animalScope(actor), id, 'animal');
  }

  read(db: Db, actor: Actor, id: string, include: Include, pick?: Pick): Promise<Read<Animal>> {
    return readVisible(db, actor, animalSource, animalScope(actor), id, 'animal', include, pick);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Animal>> {
    return readVisiblePage(db, actor, animalSource, animalScope(actor), ANIMAL_SEARCH, filters, page, options);
  }

  /** PUT/PATCH /api/animals/:id: what identification recorded about it, corrected; never its status, tag or place. */
  async update(em: EntityManager, actor: Actor, id: string, input: AnimalFieldsInput): Promise<Animal> {
    const current = await this.get(em, actor, id);
    const check = new Checker();
    const values = animalFields(check, '', input);
    const born = values.ts_born_date;
    if (born && current.ts_identified_at && born > current.ts_identified_at) check.add('ts_born_date', 'must not be after ts_identified_at');
    check.throwIfAny();
    const { establishment } = await workUnit(em, actor, 'last_control_unit_id', current.last_control_unit_id);
    return em.transactional(async (tx) => {
      const animal = await tx.findOneOrFail(Animal, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const changes: Record<string, unknown> = {};
      for (const f of ANIMAL_FIELDS) {
        const value = values[f];
        if (value === undefined) continue;
        const before = animal[f];
        if (before instanceof Date && value instanceof Date ? before.getTime() === value.getTime() : before === value) continue;
        (animal as unknown as Record<string, unknown>)[f] = value;
        changes[f] = value instanceof Date ? value.toISOString() : value;
      }
      if (!Object.keys(changes).length) return animal;
      if (changes.str_rod_code) {
        const taken = await tx.execute<{ id: string }[]>('select id from animal where str_rod_code = ? and id <> ?', [changes.str_rod_code, id]);
        if (taken.length) throw DomainError.conflict('str_rod_code');
      }
      await tx.flush();
      await appendEvent(tx, {
        type: 'ANIMAL_UPDATED',
        recordType: 'Animal',
        recordId: id,
        actorId: actor.userId,
        payload: { changes, refs: { organization_id: establishment.organization_id, establishment_id: establishment.id, control_unit_id: animal.last_control_unit_id } },
      });
      return animal;
    });
  }

  /** GET /api/animals/:id/history: its events, oldest first by when they happened. */
  async history(db: Db, actor: Actor, id: string, page: PageInput | null | undefined): Promise<Paged<HistoryEntry>> {
    const { row } = await this.read(db, actor, id, {});
    return recordHistory(db, 'Animal', row.id, page);
  }
}
