import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import type { AuthService } from '../identity/auth.service.js';
import { USER_TYPES, User, type UserType } from '../identity/user.entity.js';
import { userPolicy } from '../identity/user.policy.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents, type EventInput } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import { recordHistory, type HistoryEntry } from '../shared/history.js';
import type { PageInput, Paged } from '../shared/pagination.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import { findVisible, mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { establishmentSource } from './establishment.reader.js';
import type { SearchSpec } from '../shared/search.js';
import { Checker, isDocument, isEmail, normalizeDocument, normalizeEmail } from '../shared/validation.js';
import { County } from './county.entity.js';
import { Establishment } from './establishment.entity.js';
import { eudrPointProblem } from '../eudr/eudr-point.rules.js';
import { establishmentPolicy } from './establishment.policy.js';
import {
  ESTABLISHMENT_STATUSES,
  ESTABLISHMENT_TYPES,
  SOCIOENVIRONMENTAL_STATUSES,
  areaProblems,
  carCountyProblem,
  geoPointProblem,
  normalizeCar,
  normalizeEstablishmentDocument,
  normalizeInviteMovimentationTypes,
  normalizeZipCode,
  oneOf,
  statusTransitionProblem,
  type EstablishmentStatus,
  type EstablishmentType,
  type SocioenvironmentalStatus,
} from './establishment.rules.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { propagateSocio } from '../movements/socio.propagation.js';

export interface ResponsibleUserInput {
  str_document?: string | null;
  str_email?: string | null;
  str_name?: string | null;
  str_type?: string | null;
}

/** Establishment Create and Update of interface.md (update ignores id, str_ibge_code and responsible_user), plus geo_location and str_status. */
export interface EstablishmentInput {
  id?: string | null;
  bl_move_with_tag_reading?: boolean | null;
  county_id?: string | null;
  dec_area?: number | null;
  dec_exploration_area?: number | null;
  geo_location?: { type?: string | null; coordinates?: number[] | null } | null;
  /** INGRESS, EGRESS, BOTH: the invites its units accept (null: any). Typed unknown: the core checks it is an array. */
  lst_invite_movimentation_types?: unknown;
  responsible_user?: ResponsibleUserInput | null;
  responsible_user_id?: string | null;
  str_address?: string | null;
  str_car?: string | null;
  str_code?: string | null;
  str_company_code?: string | null;
  str_document?: string | null;
  str_email?: string | null;
  str_ibge_code?: string | null;
  str_name?: string | null;
  str_neighborhood?: string | null;
  str_socioenvironmental_status?: string | null;
  str_status?: string | null;
  str_type?: string | null;
  str_zip_code?: string | null;
  ts_unsafe_client_created_at?: Date | null;
}

/** Plain fields copied as given (after trimming). */
const TEXT_FIELDS = ['str_address', 'str_code', 'str_company_code', 'str_neighborhood'] as const;
/** Fields that only owners and managers change. */
const MANAGED_FIELDS = [
  'bl_move_with_tag_reading',
  'county_id',
  'dec_area',
  'dec_exploration_area',
  'lst_invite_movimentation_types',
  'num_longitude',
  'num_latitude',
  'responsible_user_id',
  'str_name',
  'str_type',
  'str_address',
  'str_car',
  'str_code',
  'str_company_code',
  'str_document',
  'str_email',
  'str_neighborhood',
  'str_zip_code',
] as const;
type ManagedField = (typeof MANAGED_FIELDS)[number];
type Values = Partial<Record<ManagedField | 'str_status' | 'str_socioenvironmental_status' | 'ts_unsafe_client_created_at', unknown>>;

const EXACT = {
  id: 'uuid',
  county_id: 'uuid',
  responsible_user_id: 'uuid',
  bl_move_with_tag_reading: 'boolean',
  str_name: 'text',
  str_type: 'text',
  str_status: 'text',
  str_socioenvironmental_status: 'text',
  str_address: 'text',
  str_car: 'text',
  str_code: 'text',
  str_company_code: 'text',
  str_neighborhood: 'text',
} as const;

export const ESTABLISHMENT_SEARCH: SearchSpec = {
  alias: 'e',
  exact: { ...EXACT, organization_id: 'uuid', str_document: 'text', str_email: 'text', str_zip_code: 'text' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_code', 'str_company_code', 'str_car', 'str_document'],
};

/** Every organization's establishments: no filter or text match on the owner's document, e-mail or address code. */
export const ESTABLISHMENT_UNRESTRICTED_SEARCH: SearchSpec = {
  alias: 'e',
  exact: { ...EXACT },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_name', 'str_code', 'str_company_code', 'str_car'],
};

const trimmed = (v: string | null | undefined): string | null | undefined => (typeof v === 'string' ? v.trim() || null : v);
const numeric = (v: string | number | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));

export class EstablishmentService {
  constructor(private readonly auth: AuthService) {}

  async get(em: EntityManager, actor: Actor, id: string): Promise<Establishment> {
    return mustFindVisible(em, Establishment, 'establishment e', establishmentPolicy.scope(actor), id, 'establishment');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Establishment>> {
    return readVisible(db, actor, establishmentSource, establishmentPolicy.scope(actor), id, 'establishment', include);
  }

  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Establishment>> {
    return readVisiblePage(db, actor, establishmentSource, establishmentPolicy.scope(actor), ESTABLISHMENT_SEARCH, normalizeFilters(filters), page, options);
  }

  pageUnrestricted(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Establishment>> {
    return readVisiblePage(db, actor, establishmentSource, establishmentPolicy.unrestrictedScope(actor), ESTABLISHMENT_UNRESTRICTED_SEARCH, normalizeFilters(filters), page, options);
  }

  /**
   * Registers an establishment in the caller's active organization. The public API requires
   * str_ibge_code, str_name and str_type; both require a name and a type. A client-chosen id makes
   * it idempotent (CONTRACT.md, offline-first).
   */
  async create(em: EntityManager, actor: Actor, input: EstablishmentInput, options: { publicApi?: boolean } = {}): Promise<Establishment> {
    const organizationId = establishmentPolicy.canCreate(actor);
    const check = new Checker().required('str_name', input.str_name).required('str_type', input.str_type);
    if (options.publicApi) check.required('str_ibge_code', input.str_ibge_code);
    if (input.id) check.when(!isUuid(input.id), 'id', 'must be a uuid');
    if (input.str_ibge_code !== undefined && input.str_ibge_code !== null) check.when(!/^\d{7}$/.test(input.str_ibge_code.trim()), 'str_ibge_code', 'must be a 7-digit IBGE code');
    const values = normalize(check, input);
    const responsible = normalizeResponsible(check, input);
    check.throwIfAny();
    if (values.str_socioenvironmental_status !== undefined && values.str_socioenvironmental_status !== 'NOT_EVALUATED') establishmentPolicy.canChangeSocioenvironmentalStatus(actor);
    if (values.str_status !== undefined && values.str_status !== 'ACTIVE') establishmentPolicy.canChangeStatus(actor);
    const hash = bodyHash({ organization_id: organizationId, ...input, id: undefined });

    const { establishment, deliver } = await em.transactional(async (tx) => {
      if (input.id) {
        const replayed = await replayCreate(tx, Establishment, 'establishment', 'Establishment', 'ESTABLISHMENT_CREATED', input.id, hash, (r) => r.organization_id === organizationId);
        if (replayed) return { establishment: replayed, deliver: async () => {} };
      }
      const county = await this.resolveCounty(tx, values.county_id as string | null | undefined, input.str_ibge_code?.trim() || null);
      values.county_id = county?.id ?? null;
      checkCarAndAreas(values, county, null);
      const events: EventInput[] = [];
      let deliver = async () => {};
      if (values.responsible_user_id) await this.checkResponsible(tx, actor, values.responsible_user_id as string);
      else if (responsible) {
        const found = await this.findOrInviteResponsible(tx, actor, responsible, events);
        values.responsible_user_id = found.user.id;
        deliver = found.deliver;
      }
      const establishment = tx.create(Establishment, {
        ...(input.id ? { id: input.id } : {}),
        ...(values as Partial<Establishment>),
        organization_id: organizationId,
        str_name: values.str_name as string,
        str_type: values.str_type as EstablishmentType,
      });
      tx.persist(establishment);
      await tx.flush();
      const changes = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]));
      events.push({ type: 'ESTABLISHMENT_CREATED', recordType: 'Establishment', recordId: establishment.id, actorId: actor.userId, payload: { changes, refs: { organization_id: organizationId, county_id: establishment.county_id, responsible_user_id: establishment.responsible_user_id }, body_hash: hash } });
      await appendEvents(tx, events);
      return { establishment, deliver };
    });
    await deliver();
    return establishment;
  }

  /**
   * Owners and managers change the fields; authorities and administrators the statuses (each change
   * recorded as its own event). The establishment is found visible and locked in one statement, and
   * what the change may do is decided on that locked row: two status changes at once cannot both
   * pass the transition check against the state before either.
   */
  async update(em: EntityManager, actor: Actor, id: string, input: EstablishmentInput): Promise<Establishment> {
    return em.transactional(async (tx) => {
      const establishment = await mustFindVisible(tx, Establishment, 'establishment e', establishmentPolicy.scope(actor), id, 'establishment', { forUpdate: true });
      const check = new Checker();
      for (const f of ['str_name', 'str_type'] as const) if (input[f] !== undefined) check.when(!trimmed(input[f]), f, 'must not be empty');
      const values = normalize(check, input);
      check.throwIfAny();
      if (MANAGED_FIELDS.some((f) => values[f] !== undefined)) establishmentPolicy.canManage(actor, establishment);
      const statusTo = values.str_status !== undefined && values.str_status !== establishment.str_status ? (values.str_status as EstablishmentStatus) : null;
      const socioTo = values.str_socioenvironmental_status !== undefined && values.str_socioenvironmental_status !== establishment.str_socioenvironmental_status ? (values.str_socioenvironmental_status as SocioenvironmentalStatus) : null;
      if (statusTo) establishmentPolicy.canChangeStatus(actor);
      if (socioTo) establishmentPolicy.canChangeSocioenvironmentalStatus(actor);
      if (statusTo) {
        const allowed = statusTransitionProblem(establishment.str_status, statusTo);
        if (allowed) throw new DomainError('INVALID_STATE', { field: 'str_status', str_status: establishment.str_status, allowed: [...allowed] });
      }
      const countyId = values.county_id !== undefined ? (values.county_id as string | null) : establishment.county_id;
      const county = countyId ? await this.resolveCounty(tx, countyId, null) : null;
      checkCarAndAreas(values, county, establishment);
      if (values.responsible_user_id && values.responsible_user_id !== establishment.responsible_user_id) await this.checkResponsible(tx, actor, values.responsible_user_id as string);
      const changes: Record<string, unknown> = {};
      for (const f of MANAGED_FIELDS) {
        const value = values[f];
        if (value === undefined) continue;
        const before = establishment[f];
        const same = f.startsWith('dec_') ? numeric(before as string | null) === numeric(value as string | null) : f.startsWith('lst_') ? JSON.stringify(before) === JSON.stringify(value) : before === value;
        if (same) continue;
        (establishment as unknown as Record<string, unknown>)[f] = value;
        changes[f] = value;
      }
      const events: EventInput[] = [];
      const refs = { organization_id: establishment.organization_id, county_id: establishment.county_id };
      if (Object.keys(changes).length) events.push({ type: 'ESTABLISHMENT_UPDATED', recordType: 'Establishment', recordId: id, actorId: actor.userId, payload: { changes, refs } });
      if (statusTo) {
        events.push({ type: 'ESTABLISHMENT_STATUS_CHANGED', recordType: 'Establishment', recordId: id, actorId: actor.userId, payload: { changes: { str_status: { from: establishment.str_status, to: statusTo } }, refs } });
        establishment.str_status = statusTo;
      }
      const socioFrom = establishment.str_socioenvironmental_status;
      if (socioTo) {
        events.push({ type: 'ESTABLISHMENT_SOCIOENVIRONMENTAL_STATUS_CHANGED', recordType: 'Establishment', recordId: id, actorId: actor.userId, payload: { changes: { str_socioenvironmental_status: { from: socioFrom, to: socioTo } }, refs } });
        establishment.str_socioenvironmental_status = socioTo;
      }
      if (!events.length) return establishment;
      await tx.flush();
      // Every animal that ever stood here takes its status again (set-based, one statement).
      if (socioTo) events.push(...(await propagateSocio(tx, actor.userId, establishment, { from: socioFrom, to: socioTo }, refs)));
      await appendEvents(tx, events);
      return establishment;
    });
  }

  /** The establishment's events, oldest first (Establishment History of DOMAIN.md). */
  async history(db: Db, actor: Actor, id: string, pageInput: PageInput | null | undefined): Promise<Paged<HistoryEntry>> {
    const { row } = await this.read(db, actor, id, {});
    return recordHistory(db, 'Establishment', row.id, pageInput);
  }

  /** The county named by id or IBGE code (both must agree when both are given). */
  private async resolveCounty(tx: EntityManager, countyId: string | null | undefined, ibgeCode: string | null): Promise<County | null> {
    let county: County | null = null;
    if (countyId) {
      county = await tx.findOne(County, { id: countyId });
      if (!county) throw DomainError.field('county_id', 'no such county');
    }
    if (ibgeCode) {
      const byCode = await tx.findOne(County, { str_ibge_code: ibgeCode });
      if (!byCode) throw DomainError.field('str_ibge_code', 'names no known county');
      if (county && county.id !== byCode.id) throw DomainError.field('str_ibge_code', 'is not the code of county_id');
      county = byCode;
    }
    return county;
  }

  private async checkResponsible(tx: EntityManager, actor: Actor, userId: string): Promise<void> {
    if (!(await findVisible(tx, User, '"user" u', userPolicy.scope(actor), userId))) throw DomainError.field('responsible_user_id', 'no such user');
  }

  /** The user with this document or e-mail, or a new one awaiting confirm-registration (mailed after commit). */
  private async findOrInviteResponsible(tx: EntityManager, actor: Actor, r: Required<ResponsibleUserInput>, events: EventInput[]): Promise<{ user: User; deliver: () => Promise<void> }> {
    const rows = await tx.execute<Record<string, unknown>[]>('select * from "user" where str_document = ? or lower(str_email) = ?', [r.str_document ?? '', r.str_email ?? '']);
    if (rows.length > 1) throw DomainError.field('responsible_user', 'str_document and str_email belong to different users');
    if (rows[0]) return { user: tx.map(User, rows[0] as never), deliver: async () => {} };
    const check = new Checker().required('responsible_user.str_document', r.str_document).required('responsible_user.str_email', r.str_email).required('responsible_user.str_name', r.str_name);
    check.throwIfAny();
    const user = tx.create(User, { str_name: r.str_name!, str_email: r.str_email!, str_document: r.str_document!, str_type: (r.str_type as UserType | null) ?? 'PRODUCER' });
    tx.persist(user);
    const deliver = this.auth.inviteToConfirm(tx, user);
    events.push({ type: 'USER_CREATED', recordType: 'User', recordId: user.id, actorId: actor.userId, payload: { str_email: user.str_email, str_document: user.str_document, organization_id: null, str_role: null, as: 'ESTABLISHMENT_RESPONSIBLE' } });
    return { user, deliver };
  }
}

/** Trims and normalizes the given fields (undefined stays undefined: not given), adding format errors to the check. */
function normalize(check: Checker, input: EstablishmentInput): Values {
  const out: Values = {};
  for (const f of TEXT_FIELDS) if (input[f] !== undefined) out[f] = trimmed(input[f]);
  if (input.str_name !== undefined) out.str_name = trimmed(input.str_name);
  if (input.str_type !== undefined && input.str_type !== null) {
    if (oneOf(ESTABLISHMENT_TYPES, input.str_type)) out.str_type = input.str_type;
    else check.add('str_type', `must be one of ${ESTABLISHMENT_TYPES.join(', ')}`);
  }
  if (input.str_status !== undefined && input.str_status !== null) {
    if (oneOf(ESTABLISHMENT_STATUSES, input.str_status)) out.str_status = input.str_status;
    else check.add('str_status', `must be one of ${ESTABLISHMENT_STATUSES.join(', ')}`);
  }
  if (input.str_socioenvironmental_status !== undefined && input.str_socioenvironmental_status !== null) {
    if (oneOf(SOCIOENVIRONMENTAL_STATUSES, input.str_socioenvironmental_status)) out.str_socioenvironmental_status = input.str_socioenvironmental_status;
    else check.add('str_socioenvironmental_status', `must be one of ${SOCIOENVIRONMENTAL_STATUSES.join(', ')}`);
  }
  if (input.bl_move_with_tag_reading !== undefined && input.bl_move_with_tag_reading !== null) out.bl_move_with_tag_reading = input.bl_move_with_tag_reading;
  if (input.county_id !== undefined) {
    if (input.county_id !== null && !isUuid(input.county_id)) check.add('county_id', 'must be a uuid');
    else out.county_id = input.county_id;
  }
  if (input.responsible_user_id !== undefined) {
    if (input.responsible_user_id !== null && !isUuid(input.responsible_user_id)) check.add('responsible_user_id', 'must be a uuid');
    else out.responsible_user_id = input.responsible_user_id;
  }
  for (const f of ['dec_area', 'dec_exploration_area'] as const) {
    const v = input[f];
    if (v === undefined) continue;
    if (v !== null && (!Number.isFinite(v) || v < 0)) check.add(f, 'must be a number of at least 0');
    else out[f] = v === null ? null : String(v);
  }
  const car = trimmed(input.str_car);
  if (car !== undefined) {
    const normalized = car === null ? null : normalizeCar(car);
    if (car !== null && !normalized) check.add('str_car', 'must be a CAR code: UF-IBGE7-32 hexadecimal digits');
    else out.str_car = normalized;
  }
  const doc = trimmed(input.str_document);
  if (doc !== undefined) {
    const normalized = doc === null ? null : normalizeEstablishmentDocument(doc);
    if (doc !== null && !normalized) check.add('str_document', 'must be a valid CPF or CNPJ');
    else out.str_document = normalized;
  }
  const zip = trimmed(input.str_zip_code);
  if (zip !== undefined) {
    const normalized = zip === null ? null : normalizeZipCode(zip);
    if (zip !== null && !normalized) check.add('str_zip_code', 'must be a CEP: 8 digits (00000-000)');
    else out.str_zip_code = normalized;
  }
  const mail = trimmed(input.str_email);
  if (mail !== undefined) {
    const normalized = mail === null ? null : normalizeEmail(mail);
    if (normalized !== null && !isEmail(normalized)) check.add('str_email', 'must be an e-mail address');
    else out.str_email = normalized;
  }
  if (input.geo_location !== undefined) {
    if (input.geo_location === null) {
      out.num_longitude = null;
      out.num_latitude = null;
    } else {
      const problem = geoPointProblem(input.geo_location) ?? eudrPointProblem(input.geo_location.coordinates!);
      if (problem) check.add('geo_location', problem);
      else {
        out.num_longitude = input.geo_location.coordinates![0];
        out.num_latitude = input.geo_location.coordinates![1];
      }
    }
  }
  if (input.lst_invite_movimentation_types !== undefined) {
    const result = normalizeInviteMovimentationTypes(input.lst_invite_movimentation_types);
    if ('problem' in result) check.add('lst_invite_movimentation_types', result.problem);
    else out.lst_invite_movimentation_types = result.types;
  }
  if (input.ts_unsafe_client_created_at !== undefined) out.ts_unsafe_client_created_at = input.ts_unsafe_client_created_at;
  return out;
}

function normalizeResponsible(check: Checker, input: EstablishmentInput): Required<ResponsibleUserInput> | null {
  const r = input.responsible_user;
  if (!r) return null;
  if (input.responsible_user_id) {
    check.add('responsible_user', 'give responsible_user_id or responsible_user, not both');
    return null;
  }
  const document = r.str_document?.trim() ? normalizeDocument(r.str_document) : null;
  const email = r.str_email?.trim() ? normalizeEmail(r.str_email) : null;
  if (!document && !email) check.add('responsible_user', 'needs str_document or str_email');
  if (document && !isDocument(document)) check.add('responsible_user.str_document', 'must be a valid CPF or CNPJ');
  if (email && !isEmail(email)) check.add('responsible_user.str_email', 'must be an e-mail address');
  if (r.str_type && !USER_TYPES.includes(r.str_type as UserType)) check.add('responsible_user.str_type', `must be one of ${USER_TYPES.join(', ')}`);
  return { str_document: document, str_email: email, str_name: r.str_name?.trim() || null, str_type: r.str_type ?? null };
}

/** CAR against the county, areas against each other, both over the values the establishment will have. */
function checkCarAndAreas(values: Values, county: County | null, current: Establishment | null): void {
  const check = new Checker();
  const car = values.str_car !== undefined ? (values.str_car as string | null) : (current?.str_car ?? null);
  const countyChanged = current && values.county_id !== undefined && values.county_id !== current.county_id;
  if (car && (values.str_car !== undefined || countyChanged)) {
    const problem = carCountyProblem(car, county);
    if (problem) check.add('str_car', problem);
  }
  const area = values.dec_area !== undefined ? numeric(values.dec_area as string | null) : numeric(current?.dec_area);
  const exploration = values.dec_exploration_area !== undefined ? numeric(values.dec_exploration_area as string | null) : numeric(current?.dec_exploration_area);
  for (const [field, problem] of Object.entries(areaProblems(area, exploration))) check.add(field, problem);
  check.throwIfAny();
}

/** Document, CEP and CAR filters match whichever form they are given in. */
function normalizeFilters(filters: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const f = { ...(filters ?? {}) };
  if (typeof f.str_document === 'string') f.str_document = normalizeDocument(f.str_document);
  if (typeof f.str_zip_code === 'string') f.str_zip_code = normalizeZipCode(f.str_zip_code) ?? f.str_zip_code;
  if (typeof f.str_car === 'string') f.str_car = normalizeCar(f.str_car) ?? f.str_car;
  return f;
}
