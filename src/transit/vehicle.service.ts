import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { User } from '../identity/user.entity.js';
import { userPolicy } from '../identity/user.policy.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { findVisible, mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { Vehicle } from './vehicle.entity.js';
import { vehiclePolicy } from './vehicle.policy.js';
import { vehicleSource } from './vehicle.reader.js';
import { normalizePlate, normalizeRenavam } from './vehicle.rules.js';

/** The create body of interface.md; updates take the same fields, each optional. */
export interface VehicleInput {
  id?: string | null;
  lt_path?: string | null;
  owner_id?: string | null;
  str_brand?: string | null;
  str_color?: string | null;
  str_fuel?: string | null;
  str_last_registration?: string | null;
  str_license_plate?: string | null;
  str_model?: string | null;
  str_renavam_number?: string | null;
  str_trailer_plate?: string | null;
  str_type?: string | null;
  str_year_of_manufacture?: string | null;
  ts_unsafe_client_created_at?: Date | null;
}

/** Required by the create body (interface.md). */
export const REQUIRED_FIELDS = [
  'str_brand',
  'str_color',
  'str_fuel',
  'str_last_registration',
  'str_license_plate',
  'str_model',
  'str_renavam_number',
  'str_type',
  'str_year_of_manufacture',
] as const;

type Fields = Omit<VehicleInput, 'id' | 'ts_unsafe_client_created_at'> & { ts_unsafe_client_created_at?: Date | null };
const FIELDS = [...REQUIRED_FIELDS, 'lt_path', 'owner_id', 'str_trailer_plate', 'ts_unsafe_client_created_at'] as const;

export const VEHICLE_SEARCH: SearchSpec = {
  alias: 'v',
  exact: {
    id: 'uuid',
    organization_id: 'uuid',
    owner_id: 'uuid',
    str_brand: 'text',
    str_color: 'text',
    str_fuel: 'text',
    str_last_registration: 'text',
    str_license_plate: 'text',
    str_model: 'text',
    str_renavam_number: 'text',
    str_trailer_plate: 'text',
    str_type: 'text',
    str_year_of_manufacture: 'text',
  },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_license_plate', 'str_trailer_plate', 'str_renavam_number', 'str_brand', 'str_model'],
};

const trimmed = (v: string | null | undefined): string | null | undefined => (typeof v === 'string' ? v.trim() || null : v);

export class VehicleService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<Vehicle> {
    return mustFindVisible(em, Vehicle, 'vehicle v', vehiclePolicy.scope(actor), id, 'vehicle');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Vehicle>> {
    return readVisible(db, actor, vehicleSource, vehiclePolicy.scope(actor), id, 'vehicle', include);
  }

  /** Plate and RENAVAM filters match whichever form they are given in. */
  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Vehicle>> {
    const f = { ...(filters ?? {}) };
    for (const key of ['str_license_plate', 'str_trailer_plate'] as const) if (typeof f[key] === 'string') f[key] = normalizePlate(f[key]) ?? f[key];
    if (typeof f.str_renavam_number === 'string') f.str_renavam_number = normalizeRenavam(f.str_renavam_number) ?? f.str_renavam_number;
    return readVisiblePage(db, actor, vehicleSource, vehiclePolicy.scope(actor), VEHICLE_SEARCH, f, page, options);
  }

  /**
   * Registers a vehicle in the caller's active organization. A client-chosen id makes it
   * idempotent (CONTRACT.md, offline-first): the same id and body again return the stored vehicle.
   */
  async create(em: EntityManager, actor: Actor, input: VehicleInput): Promise<Vehicle> {
    const organizationId = vehiclePolicy.canCreate(actor);
    const check = new Checker();
    for (const field of REQUIRED_FIELDS) check.required(field, input[field]);
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    const fields = this.normalize(check, input);
    check.throwIfAny();
    const created = { organization_id: organizationId, ...Object.fromEntries(FIELDS.map((f) => [f, fields[f] ?? null])) } as Record<string, unknown>;
    // Hashed after normalization (trimmed, plates in the Mercosul form, absent as null): the same vehicle written either way replays.
    const hash = bodyHash(payloadOf(created));
    return em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, Vehicle, 'vehicle', 'Vehicle', 'VEHICLE_CREATED', input.id, hash, (r) => r.organization_id === organizationId);
        if (replayed) return replayed;
      }
      await this.checkOwner(tx, actor, fields.owner_id);
      await this.checkUnique(tx, fields, null);
      const vehicle = tx.create(Vehicle, { ...(input.id ? { id: input.id } : {}), ...(created as Partial<Vehicle>), organization_id: organizationId, str_license_plate: fields.str_license_plate! });
      tx.persist(vehicle);
      await tx.flush();
      await appendEvent(tx, { type: 'VEHICLE_CREATED', recordType: 'Vehicle', recordId: vehicle.id, actorId: actor.userId, payload: { ...payloadOf(created), body_hash: hash } });
      return vehicle;
    });
  }

  async update(em: EntityManager, actor: Actor, id: string, input: VehicleInput): Promise<Vehicle> {
    const vehicle = await this.get(em, actor, id);
    vehiclePolicy.canManage(actor);
    const check = new Checker();
    for (const field of REQUIRED_FIELDS) if (input[field] !== undefined) check.when(!trimmed(input[field]), field, 'must not be empty');
    const fields = this.normalize(check, input);
    check.throwIfAny();
    return em.transactional(async (tx) => {
      if (fields.owner_id && fields.owner_id !== vehicle.owner_id) await this.checkOwner(tx, actor, fields.owner_id);
      await this.checkUnique(tx, fields, id);
      const changes: Record<string, unknown> = {};
      for (const f of FIELDS) {
        const value = fields[f];
        if (value === undefined) continue;
        const before = vehicle[f];
        if ((before instanceof Date ? before.getTime() : before) === (value instanceof Date ? value.getTime() : value)) continue;
        (vehicle as unknown as Record<string, unknown>)[f] = value;
        changes[f] = value instanceof Date ? value.toISOString() : value;
      }
      if (!Object.keys(changes).length) return vehicle;
      tx.persist(vehicle);
      await tx.flush();
      await appendEvent(tx, { type: 'VEHICLE_UPDATED', recordType: 'Vehicle', recordId: id, actorId: actor.userId, payload: { changes } });
      return vehicle;
    });
  }

  async delete(em: EntityManager, actor: Actor, id: string): Promise<void> {
    const vehicle = await this.get(em, actor, id);
    vehiclePolicy.canManage(actor);
    await em.transactional(async (tx) => {
      await tx.nativeDelete(Vehicle, { id });
      await appendEvent(tx, { type: 'VEHICLE_DELETED', recordType: 'Vehicle', recordId: id, actorId: actor.userId, payload: { str_license_plate: vehicle.str_license_plate, organization_id: vehicle.organization_id } });
    });
  }

  /** Trims and normalizes the given fields (undefined stays undefined: not given), adding format errors to the check. */
  private normalize(check: Checker, input: VehicleInput): Fields {
    const out: Fields = {};
    for (const f of FIELDS) if (f !== 'ts_unsafe_client_created_at' && input[f] !== undefined) out[f] = trimmed(input[f]);
    if (input.ts_unsafe_client_created_at !== undefined) out.ts_unsafe_client_created_at = input.ts_unsafe_client_created_at;
    for (const f of ['str_license_plate', 'str_trailer_plate'] as const) {
      if (!out[f]) continue;
      const plate = normalizePlate(out[f]);
      if (plate) out[f] = plate;
      else check.add(f, 'must be a plate in the Mercosul (AAA9A99) or old (AAA9999) form');
    }
    if (out.str_renavam_number) {
      const renavam = normalizeRenavam(out.str_renavam_number);
      if (renavam) out.str_renavam_number = renavam;
      else check.add('str_renavam_number', 'must be a RENAVAM: 11 digits with a valid check digit');
    }
    if (out.owner_id) check.when(!isUuid(out.owner_id), 'owner_id', 'must be a uuid');
    return out;
  }

  private async checkOwner(tx: EntityManager, actor: Actor, ownerId: string | null | undefined): Promise<void> {
    if (!ownerId) return;
    if (!(await findVisible(tx, User, '"user" u', userPolicy.scope(actor), ownerId))) throw DomainError.field('owner_id', 'no such user');
  }

  private async checkUnique(tx: EntityManager, fields: Fields, exceptId: string | null): Promise<void> {
    const notSelf = exceptId ? { id: { $ne: exceptId } } : {};
    if (fields.str_license_plate && (await tx.count(Vehicle, { str_license_plate: fields.str_license_plate, ...notSelf }))) throw DomainError.conflict('str_license_plate');
    if (fields.str_renavam_number && (await tx.count(Vehicle, { str_renavam_number: fields.str_renavam_number, ...notSelf }))) throw DomainError.conflict('str_renavam_number');
  }
}

/** The created event's fields, and what a create is hashed on when replayed: every field, in a fixed order, absent as null, dates as ISO strings. */
function payloadOf(created: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(['organization_id', ...FIELDS].map((f) => [f, created[f] instanceof Date ? (created[f] as Date).toISOString() : (created[f] ?? null)]));
}
