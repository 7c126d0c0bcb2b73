import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { Animal } from '../animals/animal.entity.js';
import { animalScope } from '../animals/animal.reader.js';
import type { Actor } from '../identity/actor.js';
import { AnimalsEgress } from '../movements/animals-egress.entity.js';
import { AnimalsIngress } from '../movements/animals-ingress.entity.js';
import { Gta } from '../movements/gta.entity.js';
import { gtaPolicy } from '../movements/gta.policy.js';
import { ufOfCounty } from '../movements/gta.service.js';
import { movementPolicy, type Direction } from '../movements/movement.policy.js';
import { Occurrence } from '../movements/occurrence.entity.js';
import { occurrencePolicy } from '../movements/occurrence.policy.js';
import { occurrenceScope } from '../movements/occurrence.reader.js';
import { Establishment } from '../places/establishment.entity.js';
import { establishmentPolicy } from '../places/establishment.policy.js';
import { DomainError } from '../shared/errors.js';
import { findVisible, type Scope } from '../shared/scoped-query.js';
import { tagsPolicy } from '../tags/tags.policy.js';
import type { AttachmentRecordType } from './attachment.rules.js';

/**
 * A record an attachment may hang from: its table (aliased as its policy's scope is written), the
 * scope that decides who sees it (its own policy's: attachments are seen exactly where their
 * record is), and who may change it, so may attach to it.
 */
interface AttachedRecord<T extends object> {
  entity: EntityName<T>;
  table: string;
  noun: string;
  scope(actor: Actor): Scope;
  mayChange(em: EntityManager, actor: Actor, record: T): Promise<void>;
}

const establishmentOf = (em: EntityManager, unitId: string): Promise<Establishment> =>
  em.execute<Record<string, unknown>[]>('select e.* from establishment e join control_unit cu on cu.establishment_id = e.id where cu.id = ?', [unitId]).then((rows) => em.map(Establishment, rows[0] as never));

/** Who passes `check` on the establishment of the record's unit changes it. */
const atUnitOf =
  <T>(unitOf: (record: T) => string, check: (actor: Actor, establishment: Establishment) => void) =>
  async (em: EntityManager, actor: Actor, record: object): Promise<void> =>
    check(actor, await establishmentOf(em, unitOf(record as T)));

/** Who works a movement at its unit (owners, managers, operators, an invitee whose OPERATOR invite covers the direction) changes it. */
async function worksMovementAt(em: EntityManager, actor: Actor, unitId: string, direction: Direction): Promise<void> {
  try {
    await movementPolicy.work(em, actor, 'record_id', unitId, direction);
  } catch (e) {
    // The movement is visible through its other unit: seeing it is not working it.
    if (e instanceof DomainError && e.code === 'VALIDATION_FAILED') throw DomainError.forbidden(`only those who work its ${direction === 'EGRESS' ? 'origin' : 'destination'} unit attach files to this movement`);
    throw e;
  }
}

/** The first check that lets the caller through; forbidden (with `reason`) when none does. */
async function anyOf(reason: string, checks: (() => void | Promise<void>)[]): Promise<void> {
  for (const check of checks) {
    try {
      await check();
      return;
    } catch (e) {
      if (!(e instanceof DomainError && e.code === 'FORBIDDEN')) throw e;
    }
  }
  throw DomainError.forbidden(reason);
}

export const ATTACHED_RECORDS: { [K in AttachmentRecordType]: AttachedRecord<object> } = {
  GTA: {
    entity: Gta,
    table: 'gta g',
    noun: 'gta',
    scope: (actor) => gtaPolicy.scope(actor),
    async mayChange(em, actor, record) {
      const gta = record as Gta;
      const actorUf = await ufOfCounty(em, actor.countyId);
      const party = (establishmentId: string | null) => async () => {
        if (!establishmentId) throw DomainError.forbidden('no establishment');
        const e = await em.findOneOrFail(Establishment, { id: establishmentId });
        tagsPolicy.canWork(actor, e);
      };
      await anyOf("only the GTA's issuer, owners, managers and operators of its origin's or destination's organization, an authority of its federative unit or an administrator attach files to it", [
        () => gtaPolicy.canCancel(actor, gta, actorUf),
        party(gta.from_establishment_id),
        party(gta.to_establishment_id),
      ]);
    },
  },
  ANIMALS_EGRESS: {
    entity: AnimalsEgress,
    table: 'animals_egress ae',
    noun: 'animals egress',
    scope: (actor) => movementPolicy.egressScope(actor),
    mayChange: (em, actor, record) => worksMovementAt(em, actor, (record as AnimalsEgress).from_control_unit_id, 'EGRESS'),
  },
  ANIMALS_INGRESS: {
    entity: AnimalsIngress,
    table: 'animals_ingress ai',
    noun: 'animals ingress',
    scope: (actor) => movementPolicy.ingressScope(actor),
    mayChange: (em, actor, record) => worksMovementAt(em, actor, (record as AnimalsIngress).to_control_unit_id, 'INGRESS'),
  },
  OCCURRENCE: {
    entity: Occurrence,
    table: 'occurrence o',
    noun: 'occurrence',
    scope: occurrenceScope,
    mayChange: atUnitOf((o: Occurrence) => o.control_unit_id, (actor, e) => occurrencePolicy.canHandle(actor, e)),
  },
  ANIMAL: {
    entity: Animal,
    table: 'animal a',
    noun: 'animal',
    scope: animalScope,
    mayChange: atUnitOf((a: Animal) => a.last_control_unit_id, (actor, e) => tagsPolicy.canWork(actor, e)),
  },
  ESTABLISHMENT: {
    entity: Establishment,
    table: 'establishment e',
    noun: 'establishment',
    scope: (actor) => establishmentPolicy.scope(actor),
    async mayChange(_em, actor, record) {
      establishmentPolicy.canManage(actor, record as Establishment);
    },
  },
};

const RECORD_TYPES = Object.keys(ATTACHED_RECORDS) as AttachmentRecordType[];

/** `gta g` → `g`: the alias the record's scope is written on. */
export const aliasOf = (r: { table: string }): string => r.table.split(' ')[1]!;

/**
 * Attachments are seen where their record is (DOMAIN.md); uploaded to a record the caller may
 * change; deleted by their author alone.
 */
export const attachmentPolicy = {
  /** SQL condition on alias "at": each record type through its own policy's scope, one index lookup per attachment. */
  scope(actor: Actor): Scope {
    if (actor.isAdmin) return { sql: 'true', params: [] };
    const parts: string[] = [];
    const params: unknown[] = [];
    for (const type of RECORD_TYPES) {
      const r = ATTACHED_RECORDS[type];
      const s = r.scope(actor);
      parts.push(`(at.str_record_type = '${type}' and exists (select 1 from ${r.table} where ${aliasOf(r)}.id = at.record_id and ${s.sql}))`);
      params.push(...s.params);
    }
    return { sql: `(${parts.join(' or ')})`, params };
  },

  /** The record, visible to the caller (else 404, as for one that does not exist), that it may change (else 403). */
  async recordToChange(em: EntityManager, actor: Actor, type: AttachmentRecordType, id: string): Promise<object> {
    const r = ATTACHED_RECORDS[type];
    const record = await findVisible(em, r.entity, r.table, r.scope(actor), id);
    if (!record) throw DomainError.notFound(r.noun);
    await r.mayChange(em, actor, record);
    return record;
  },

  canDelete(actor: Actor, attachment: { author_user_id: string }): void {
    if (attachment.author_user_id !== actor.userId) throw DomainError.forbidden('only its author deletes an attachment');
  },
};
