import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { oneOf } from '../places/establishment.rules.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { findVisible, mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { trimmedOrNull } from '../tags/field-work.js';
import { REPORT_EFFECTS, animalNotReportable, applyClose, applyReport, type AnimalRow } from './occurrence.effects.js';
import { Occurrence } from './occurrence.entity.js';
import { occurrencePolicy } from './occurrence.policy.js';
import { OCCURRENCE_SEARCH, occurrenceScope, occurrenceSource } from './occurrence.reader.js';
import { ANIMAL_TYPES, REPORTED_TYPES, type OccurrenceType } from './occurrence.rules.js';

/** Occurrence Create: what a person reports at a unit (the other types are raised by the rules). */
export interface OccurrenceInput {
  id?: string | null;
  str_type?: string | null;
  control_unit_id?: string | null;
  animal_id?: string | null;
  tag_id?: string | null;
  animals_egress_id?: string | null;
  animals_ingress_id?: string | null;
  gta_id?: string | null;
  str_description?: string | null;
  ts_occurred_at?: Date | null;
  ts_unsafe_client_created_at?: Date | null;
}

/** Occurrence Resolve / Dismiss. */
export interface OccurrenceCloseInput {
  str_resolution?: string | null;
}

/** A device's clock may run a little ahead of the server's; an occurrence further in the future is a mistake. */
const CLOCK_SKEW_MS = 5 * 60_000;

const REF_FIELDS = ['animal_id', 'tag_id', 'animals_egress_id', 'animals_ingress_id', 'gta_id'] as const;

interface UnitRef {
  unit: ControlUnit;
  organization_id: string;
  establishment_id: string;
}

export class OccurrenceService {
  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Occurrence>> {
    return readVisible(db, actor, occurrenceSource, occurrenceScope(actor), id, 'occurrence', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Occurrence>> {
    return readVisiblePage(db, actor, occurrenceSource, occurrenceScope(actor), OCCURRENCE_SEARCH, filters, page, options);
  }

  /**
   * POST /api/occurrences: a person reports an incident at a unit of its organization, on the unit
   * or on an animal, tag, movement or GTA of that unit. ANIMAL_DEATH ends an ACTIVE animal (DEAD,
   * its stay closed when it died); THEFT makes it MISSING. A client-chosen id makes it idempotent.
   */
  async create(em: EntityManager, actor: Actor, body: OccurrenceInput): Promise<Occurrence> {
    const input = canonical(body);
    const { type, occurredAt } = checkInput(input);
    const at = await this.unitFor(em, actor, input.control_unit_id!);
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, Occurrence, 'occurrence', 'Occurrence', 'OCCURRENCE_REPORTED', input.id, hash, (r) => r.control_unit_id === at.unit.id);
        if (replayed) return replayed;
      }
      const { animal, animalId } = await checkRefs(tx, at.unit.id, input);
      const effect = REPORT_EFFECTS[type];
      if (effect && animal && !effect.from.includes(animal.str_status)) throw animalNotReportable(type, animal, effect.from);
      const now = new Date();
      const occurrence = tx.create(Occurrence, {
        ...(input.id ? { id: input.id } : {}),
        str_type: type,
        control_unit_id: at.unit.id,
        animal_id: animalId,
        tag_id: input.tag_id ?? null,
        animals_egress_id: input.animals_egress_id ?? null,
        animals_ingress_id: input.animals_ingress_id ?? null,
        gta_id: input.gta_id ?? null,
        reporter_user_id: actor.userId,
        str_description: trimmedOrNull(input.str_description),
        ts_occurred_at: occurredAt ?? now,
        ts_unsafe_client_created_at: input.ts_unsafe_client_created_at ?? null,
        ts_created_at: now,
        ts_updated_at: now,
      });
      await tx.persist(occurrence).flush();
      const refs = { organization_id: at.organization_id, establishment_id: at.establishment_id, control_unit_id: at.unit.id };
      const changes = {
        str_type: type,
        str_status: 'OPEN',
        ...Object.fromEntries(REF_FIELDS.map((f) => [f, occurrence[f]])),
        str_description: occurrence.str_description,
        ts_occurred_at: occurrence.ts_occurred_at.toISOString(),
        ts_unsafe_client_created_at: occurrence.ts_unsafe_client_created_at?.toISOString() ?? null,
      };
      const events: EventInput[] = [
        { type: 'OCCURRENCE_REPORTED', recordType: 'Occurrence', recordId: occurrence.id, actorId: actor.userId, payload: { changes, refs: { ...refs, by: 'PERSON' }, body_hash: hash } },
        ...(animal ? await applyReport(tx, occurrence, animal, actor.userId, refs) : []),
      ];
      await appendEvents(tx, events);
      return occurrence;
    });
  }

  resolve(em: EntityManager, actor: Actor, id: string, input: OccurrenceCloseInput): Promise<Occurrence> {
    return this.close(em, actor, id, input, 'RESOLVED');
  }

  dismiss(em: EntityManager, actor: Actor, id: string, input: OccurrenceCloseInput): Promise<Occurrence> {
    return this.close(em, actor, id, input, 'DISMISSED');
  }

  /** OPEN → RESOLVED | DISMISSED with a resolution text, by those who work at its unit; what closing does to the animal (occurrence.effects.ts) in the same transaction. */
  private async close(em: EntityManager, actor: Actor, id: string, input: OccurrenceCloseInput, to: 'RESOLVED' | 'DISMISSED'): Promise<Occurrence> {
    const resolution = trimmedOrNull(input.str_resolution);
    const found = await mustFindVisible(em, Occurrence, 'occurrence o', occurrenceScope(actor), id.toLowerCase(), 'occurrence');
    if (!resolution) throw DomainError.field('str_resolution', 'is required');
    const at = await this.unitFor(em, actor, found.control_unit_id);
    return em.transactional(async (tx) => {
      const [row] = await tx.execute<Record<string, unknown>[]>('select * from occurrence where id = ? for update', [found.id]);
      const occurrence = tx.map(Occurrence, row as never);
      if (occurrence.str_status !== 'OPEN') {
        throw new DomainError('INVALID_STATE', { str_status: occurrence.str_status, allowed: ['OPEN'], message: `occurrence ${occurrence.str_status} cannot be ${to.toLowerCase()}: only OPEN` });
      }
      const now = new Date();
      Object.assign(occurrence, { str_status: to, str_resolution: resolution, resolver_user_id: actor.userId, ts_resolved_at: now, ts_updated_at: now });
      await tx.execute('update occurrence set str_status = ?, str_resolution = ?, resolver_user_id = ?, ts_resolved_at = ?, ts_updated_at = ? where id = ?', [to, resolution, actor.userId, now, now, occurrence.id]);
      const refs = { organization_id: at.organization_id, establishment_id: at.establishment_id, control_unit_id: at.unit.id };
      await appendEvents(tx, [
        {
          type: to === 'RESOLVED' ? 'OCCURRENCE_RESOLVED' : 'OCCURRENCE_DISMISSED',
          recordType: 'Occurrence',
          recordId: occurrence.id,
          actorId: actor.userId,
          occurredAt: now,
          payload: { changes: { str_status: { from: 'OPEN', to }, str_resolution: resolution }, refs: { ...refs, str_type: occurrence.str_type, animal_id: occurrence.animal_id } },
        },
        ...(await applyClose(tx, occurrence, actor.userId, refs)),
      ]);
      return occurrence;
    });
  }

  /** The unit of control_unit_id: seen by the caller (else 422 naming the field, as for one that does not exist), worked at by it (else 403). */
  private async unitFor(em: EntityManager, actor: Actor, id: string): Promise<UnitRef> {
    const unit = await findVisible(em, ControlUnit, 'control_unit cu', controlUnitPolicy.scope(actor), id);
    if (!unit) throw DomainError.field('control_unit_id', 'no such control unit');
    const [e] = await em.execute<{ organization_id: string }[]>('select organization_id from establishment where id = ?', [unit.establishment_id]);
    occurrencePolicy.canHandle(actor, e!);
    return { unit, organization_id: e!.organization_id, establishment_id: unit.establishment_id };
  }
}

/** Ids in lower case before anything stores, hashes or compares them. */
function canonical(input: OccurrenceInput): OccurrenceInput {
  const out: OccurrenceInput = { ...input };
  for (const f of ['id', 'control_unit_id', ...REF_FIELDS] as const) if (typeof out[f] === 'string') out[f] = out[f].toLowerCase();
  return out;
}

function checkInput(input: OccurrenceInput): { type: OccurrenceType; occurredAt: Date | null } {
  const check = new Checker();
  if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
  check.required('str_type', input.str_type);
  const type = input.str_type;
  if (type) check.when(!oneOf(REPORTED_TYPES, type), 'str_type', `must be one of ${REPORTED_TYPES.join(', ')} (the other types are raised by the movement rules)`);
  check.required('control_unit_id', input.control_unit_id);
  for (const f of ['control_unit_id', ...REF_FIELDS] as const) if (input[f]) check.when(!isUuid(input[f]), f, 'must be a uuid');
  if (type && oneOf(ANIMAL_TYPES, type)) check.when(!input.animal_id, 'animal_id', `is required for ${type}`);
  if (type === 'OTHER') check.when(!trimmedOrNull(input.str_description), 'str_description', 'is required when str_type is OTHER');
  const occurredAt = input.ts_occurred_at ?? null;
  if (occurredAt) check.when(occurredAt.getTime() > Date.now() + CLOCK_SKEW_MS, 'ts_occurred_at', 'must not be in the future');
  check.throwIfAny();
  return { type: type as OccurrenceType, occurredAt };
}

/**
 * The records the report names must be at its unit: the animal there (locked: the report may
 * change it), the tag there (on an animal there, or in stock there; an applied tag names its
 * animal when the body does not), a movement from or to it, a GTA from or to it. One that is not
 * is named exactly as one that does not exist.
 */
async function checkRefs(tx: EntityManager, unitId: string, input: OccurrenceInput): Promise<{ animal: AnimalRow | null; animalId: string | null }> {
  const check = new Checker();
  let animal: AnimalRow | null = null;
  let animalId = input.animal_id ?? null;
  if (animalId) {
    const [row] = await tx.execute<AnimalRow[]>('select id, str_status, last_control_unit_id from animal where id = ? for update', [animalId]);
    if (row && row.last_control_unit_id === unitId) animal = row;
    else check.add('animal_id', 'no such animal at control_unit_id');
  }
  if (input.tag_id) {
    const [tag] = await tx.execute<{ animal_id: string | null; unit_id: string | null }[]>(
      'select t.animal_id, coalesce(a.last_control_unit_id, t.last_control_unit_id) as unit_id from tag t left join animal a on a.id = t.animal_id where t.id = ?',
      [input.tag_id],
    );
    if (!tag || tag.unit_id !== unitId) check.add('tag_id', 'no such tag at control_unit_id');
    else if (animalId && tag.animal_id && tag.animal_id !== animalId) check.add('tag_id', 'is not a tag of animal_id');
    else animalId ??= tag.animal_id;
  }
  const movements = [
    ['animals_egress_id', 'select 1 from animals_egress where id = ? and (from_control_unit_id = ? or to_control_unit_id = ?)', 'animals egress from or to control_unit_id'],
    ['animals_ingress_id', 'select 1 from animals_ingress where id = ? and to_control_unit_id = ?', 'animals ingress at control_unit_id'],
    ['gta_id', 'select 1 from gta where id = ? and (from_control_unit_id = ? or to_control_unit_id = ?)', 'GTA from or to control_unit_id'],
  ] as const;
  for (const [field, sql, what] of movements) {
    if (!input[field]) continue;
    const units = sql.split('?').length - 2;
    const rows = await tx.execute<unknown[]>(sql, [input[field], ...Array<string>(units).fill(unitId)]);
    if (!rows.length) check.add(field, `no such ${what}`);
  }
  check.throwIfAny();
  return { animal, animalId };
}
