import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { User } from '../identity/user.entity.js';
import { userPolicy } from '../identity/user.policy.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { findVisible, mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { controlUnitSource } from './control-unit.reader.js';
import type { SearchSpec } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { ControlUnit } from './control-unit.entity.js';
import { Establishment } from './establishment.entity.js';
import { controlUnitPolicy, establishmentPolicy } from './establishment.policy.js';
import { CONTROL_UNIT_TYPES, PREDOMINANT_PHASES, PREDOMINANT_SYSTEMS, UNIT_REGISTRATION_STATUSES, oneOf, type EstablishmentStatus } from './establishment.rules.js';
import { bodyHash, replayCreate } from '../shared/replay.js';

export interface ControlUnitInput {
  id?: string | null;
  establishment_id?: string | null;
  responsible_user_id?: string | null;
  str_code?: string | null;
  str_name?: string | null;
  str_type?: string | null;
  str_predominant_phase?: string | null;
  str_predominant_system?: string | null;
}

const REQUIRED = ['establishment_id', 'str_code', 'str_name', 'str_type'] as const;
const FIELDS = ['str_code', 'str_name', 'str_type', 'str_predominant_phase', 'str_predominant_system', 'responsible_user_id'] as const;
type Field = (typeof FIELDS)[number];
const ENUMS: Partial<Record<Field, readonly string[]>> = { str_type: CONTROL_UNIT_TYPES, str_predominant_phase: PREDOMINANT_PHASES, str_predominant_system: PREDOMINANT_SYSTEMS };

export const CONTROL_UNIT_SEARCH: SearchSpec = {
  alias: 'cu',
  exact: { id: 'uuid', establishment_id: 'uuid', responsible_user_id: 'uuid', str_code: 'text', str_name: 'text', str_type: 'text', str_predominant_phase: 'text', str_predominant_system: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_code'],
};

const trimmed = (v: string | null | undefined): string | null | undefined => (typeof v === 'string' ? v.trim() || null : v);

export class ControlUnitService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<ControlUnit> {
    return mustFindVisible(em, ControlUnit, 'control_unit cu', controlUnitPolicy.scope(actor), id, 'control unit');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<ControlUnit>> {
    return readVisible(db, actor, controlUnitSource, controlUnitPolicy.scope(actor), id, 'control unit', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<ControlUnit>> {
    return readVisiblePage(db, actor, controlUnitSource, controlUnitPolicy.scope(actor), CONTROL_UNIT_SEARCH, filters, page, options);
  }

  /** Adds a unit to an establishment the caller configures; a client-chosen id makes it idempotent. */
  async create(em: EntityManager, actor: Actor, input: ControlUnitInput): Promise<ControlUnit> {
    const check = new Checker();
    for (const f of REQUIRED) check.required(f, input[f]);
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    if (input.establishment_id) check.when(!isUuid(input.establishment_id), 'establishment_id', 'must be a uuid');
    const values = normalize(check, input);
    check.throwIfAny();
    const establishment = await findVisible(em, Establishment, 'establishment e', establishmentPolicy.scope(actor), input.establishment_id!);
    if (!establishment) throw DomainError.field('establishment_id', 'no such establishment');
    establishmentPolicy.canManage(actor, establishment);
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, ControlUnit, 'control_unit', 'ControlUnit', 'CONTROL_UNIT_CREATED', input.id, hash, (r) => r.establishment_id === establishment.id);
        if (replayed) return replayed;
      }
      await checkAcceptsUnits(tx, establishment.id);
      if (values.responsible_user_id) await checkResponsible(tx, actor, values.responsible_user_id);
      await checkUnique(tx, values.str_code!, null);
      const unit = tx.create(ControlUnit, {
        ...(input.id ? { id: input.id } : {}),
        ...(values as Partial<ControlUnit>),
        establishment_id: establishment.id,
        str_code: values.str_code!,
        str_name: values.str_name!,
        str_type: values.str_type!,
      });
      tx.persist(unit);
      await tx.flush();
      await appendEvent(tx, { type: 'CONTROL_UNIT_CREATED', recordType: 'ControlUnit', recordId: unit.id, actorId: actor.userId, payload: { changes: values, refs: { establishment_id: establishment.id, organization_id: establishment.organization_id }, body_hash: hash } });
      return unit;
    });
  }

  async update(em: EntityManager, actor: Actor, id: string, input: ControlUnitInput): Promise<ControlUnit> {
    const unit = await this.get(em, actor, id);
    const establishment = await em.findOneOrFail(Establishment, { id: unit.establishment_id });
    const check = new Checker();
    for (const f of ['str_code', 'str_name', 'str_type'] as const) if (input[f] !== undefined) check.when(!trimmed(input[f]), f, 'must not be empty');
    const values = normalize(check, input);
    check.throwIfAny();
    establishmentPolicy.canManage(actor, establishment);
    return em.transactional(async (tx) => {
      if (values.responsible_user_id && values.responsible_user_id !== unit.responsible_user_id) await checkResponsible(tx, actor, values.responsible_user_id);
      if (values.str_code && values.str_code !== unit.str_code) await checkUnique(tx, values.str_code, id);
      const changes: Record<string, unknown> = {};
      for (const f of FIELDS) {
        const value = values[f];
        if (value === undefined || value === unit[f]) continue;
        (unit as unknown as Record<string, unknown>)[f] = value;
        changes[f] = value;
      }
      if (!Object.keys(changes).length) return unit;
      tx.persist(unit);
      await tx.flush();
      await appendEvent(tx, { type: 'CONTROL_UNIT_UPDATED', recordType: 'ControlUnit', recordId: id, actorId: actor.userId, payload: { changes, refs: { establishment_id: unit.establishment_id } } });
      return unit;
    });
  }
}

function normalize(check: Checker, input: ControlUnitInput): Partial<Record<Field, string | null>> {
  const out: Partial<Record<Field, string | null>> = {};
  for (const f of FIELDS) {
    if (input[f] === undefined) continue;
    const v = trimmed(input[f]);
    const allowed = ENUMS[f];
    if (v !== null && v !== undefined && allowed && !oneOf(allowed, v)) check.add(f, `must be one of ${allowed.join(', ')}`);
    else out[f] = v ?? null;
  }
  if (out.responsible_user_id) check.when(!isUuid(out.responsible_user_id), 'responsible_user_id', 'must be a uuid');
  return out;
}

async function checkResponsible(tx: EntityManager, actor: Actor, userId: string): Promise<void> {
  if (!(await findVisible(tx, User, '"user" u', userPolicy.scope(actor), userId))) throw DomainError.field('responsible_user_id', 'no such user');
}

/** Under a share lock: a concurrent status change waits for this unit, or this unit sees the new status. */
async function checkAcceptsUnits(tx: EntityManager, establishmentId: string): Promise<void> {
  const [row] = await tx.execute<{ str_status: EstablishmentStatus }[]>('select str_status from establishment where id = ? for share', [establishmentId]);
  const status = row!.str_status;
  if (!UNIT_REGISTRATION_STATUSES.includes(status)) {
    throw new DomainError('INVALID_STATE', { field: 'str_status', str_status: status, allowed: [...UNIT_REGISTRATION_STATUSES], message: `control units are added to ${UNIT_REGISTRATION_STATUSES.join(' or ')} establishments` });
  }
}

async function checkUnique(tx: EntityManager, code: string, exceptId: string | null): Promise<void> {
  if (await tx.count(ControlUnit, { str_code: code, ...(exceptId ? { id: { $ne: exceptId } } : {}) })) throw DomainError.conflict('str_code');
}
