import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { User } from '../identity/user.entity.js';
import { userPolicy } from '../identity/user.policy.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { oneOf } from '../places/establishment.rules.js';
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
import { Gta } from './gta.entity.js';
import { gtaPolicy } from './gta.policy.js';
import { gtaSource, gtaStatusCondition } from './gta.reader.js';
import { GTA_PURPOSES, GTA_SPECIES, GTA_STATUSES, cancelProblem, effectiveStatus, type GtaStatus } from './gta.rules.js';

/** Gta Gta of interface.md: the GTA itself inside Gta Create. */
export interface GtaInput {
  id?: string | null;
  str_code?: string | null;
  int_animal_quantity?: number | null;
  str_federative_unit?: string | null;
  str_series?: string | null;
  str_purpose?: string | null;
  str_species?: string | null;
  str_external_id?: string | null;
  from_control_unit_id?: string | null;
  to_control_unit_id?: string | null;
  ts_issued_at?: Date | null;
  ts_valid_until?: Date | null;
}

/** Gta Create: `gta` + `user_id` (the responsible user). */
export interface GtaCreateInput {
  gta?: GtaInput | null;
  user_id?: string | null;
}

export const GTA_SEARCH: SearchSpec = {
  alias: 'g',
  exact: {
    id: 'uuid',
    organization_id: 'uuid',
    from_control_unit_id: 'uuid',
    to_control_unit_id: 'uuid',
    from_establishment_id: 'uuid',
    to_establishment_id: 'uuid',
    responsible_user_id: 'uuid',
    str_code: 'text',
    str_series: 'text',
    str_federative_unit: 'text',
    str_status: 'text',
    str_purpose: 'text',
    str_species: 'text',
    str_external_id: 'text',
  },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_issued_at', 'ts_valid_until'],
  query: ['str_code', 'str_series', 'str_external_id'],
};

const trimmed = (v: string | null | undefined): string | null | undefined => (typeof v === 'string' ? v.trim() || null : v);

/** What a new GTA is built from, whichever door it came through; the state may notify one without its origin, destination, quantity, purpose or validity. */
export interface NewGta {
  id?: string;
  str_code: string;
  int_animal_quantity: number | null;
  str_federative_unit: string;
  str_series: string | null;
  str_purpose: string | null;
  str_species: string;
  str_external_id: string | null;
  from: ControlUnit | null;
  to: ControlUnit | null;
  origin: Establishment | null;
  destination: Establishment | null;
  ts_issued_at: Date;
  ts_valid_until: Date | null;
  responsible_user_id: string | null;
  issuer_user_id: string;
}

export class GtaService {
  async get(em: EntityManager, actor: Actor, id: string): Promise<Gta> {
    return mustFindVisible(em, Gta, 'gta g', gtaPolicy.scope(actor), id, 'gta');
  }

  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Gta>> {
    return readVisible(db, actor, gtaSource, gtaPolicy.scope(actor), id, 'gta', include);
  }

  /** str_status filters by the status read (EXPIRED is an ISSUED GTA past ts_valid_until, and ISSUED excludes those). */
  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Gta>> {
    const { str_status: status, ...rest } = filters ?? {};
    const scope = gtaPolicy.scope(actor);
    if (status === undefined || status === null) return readVisiblePage(db, actor, gtaSource, scope, GTA_SEARCH, filters, page, options);
    if (!oneOf(GTA_STATUSES, status)) throw DomainError.field('str_status', `must be one of ${GTA_STATUSES.join(', ')}`);
    const condition = gtaStatusCondition(status);
    return readVisiblePage(db, actor, gtaSource, { sql: `${scope.sql} and ${condition.sql}`, params: [...scope.params, ...condition.params] }, GTA_SEARCH, rest, page, options);
  }

  /** POST /api/gtas: the origin unit must be visible; a client-chosen gta.id makes it idempotent. */
  async create(em: EntityManager, actor: Actor, input: GtaCreateInput): Promise<Gta> {
    const g = input.gta ?? {};
    const check = new Checker();
    check.required('gta', input.gta);
    for (const f of ['str_code', 'int_animal_quantity', 'str_purpose', 'from_control_unit_id', 'to_control_unit_id', 'ts_valid_until'] as const) check.required(`gta.${f}`, g[f]);
    if (g.id) check.when(!isUuid(g.id), 'gta.id', 'must be a uuid');
    for (const f of ['from_control_unit_id', 'to_control_unit_id'] as const) if (g[f]) check.when(!isUuid(g[f]), `gta.${f}`, 'must be a uuid');
    if (input.user_id) check.when(!isUuid(input.user_id), 'user_id', 'must be a uuid');
    quantityAndEnums(check, 'gta.', g.int_animal_quantity, g.str_purpose, g.str_species);
    if (g.ts_issued_at && g.ts_valid_until) check.when(g.ts_valid_until.getTime() < g.ts_issued_at.getTime(), 'gta.ts_valid_until', 'must not be before ts_issued_at');
    if (g.from_control_unit_id && g.from_control_unit_id === g.to_control_unit_id) check.add('gta.to_control_unit_id', 'must differ from from_control_unit_id');
    check.throwIfAny();
    const from = await findVisible(em, ControlUnit, 'control_unit cu', controlUnitPolicy.scope(actor), g.from_control_unit_id!);
    if (!from) throw DomainError.field('gta.from_control_unit_id', 'no such control unit');
    const to = await em.findOne(ControlUnit, { id: g.to_control_unit_id! });
    if (!to) throw DomainError.field('gta.to_control_unit_id', 'no such control unit');
    const [origin, destination] = await Promise.all([em.findOneOrFail(Establishment, { id: from.establishment_id }), em.findOneOrFail(Establishment, { id: to.establishment_id })]);
    const originUf = await ufOfCounty(em, origin.county_id);
    gtaPolicy.canIssue(actor, origin, originUf, await ufOfCounty(em, actor.countyId));
    const uf = trimmed(g.str_federative_unit)?.toUpperCase() ?? originUf;
    if (!uf) throw DomainError.field('gta.str_federative_unit', "is required when the origin establishment has no county");
    if (!/^[A-Z]{2}$/.test(uf)) throw DomainError.field('gta.str_federative_unit', 'must be a two-letter UF');
    const hash = bodyHash({ ...input, gta: { ...g, id: undefined } });
    return em.transactional(async (tx) => {
      if (g.id) {
        const replayed = await replayCreate(tx, Gta, 'gta', 'Gta', 'GTA_CREATED', g.id, hash, (r) => r.organization_id === origin.organization_id);
        if (replayed) return replayed;
      }
      if (input.user_id && !(await findVisible(tx, User, '"user" u', userPolicy.scope(actor), input.user_id))) throw DomainError.field('user_id', 'no such user');
      return this.insert(tx, actor, {
        ...(g.id ? { id: g.id } : {}),
        str_code: trimmed(g.str_code)!,
        int_animal_quantity: g.int_animal_quantity!,
        str_federative_unit: uf,
        str_series: trimmed(g.str_series) ?? null,
        str_purpose: g.str_purpose!,
        str_species: g.str_species ?? 'BOVINE',
        str_external_id: trimmed(g.str_external_id) ?? null,
        from,
        to,
        origin,
        destination,
        ts_issued_at: g.ts_issued_at ?? new Date(),
        ts_valid_until: g.ts_valid_until!,
        responsible_user_id: input.user_id ?? null,
        issuer_user_id: actor.userId,
      }, hash);
    });
  }

  /** Inserts a checked GTA and its GTA_CREATED event inside the caller's transaction; unique by UF + series + number. */
  async insert(tx: EntityManager, actor: Actor, n: NewGta, hash: string | null): Promise<Gta> {
    const taken = await tx.execute<{ n: number }[]>(
      `select count(*)::int as n from gta where str_federative_unit = ? and coalesce(str_series, '') = ? and str_code = ?`,
      [n.str_federative_unit, n.str_series ?? '', n.str_code],
    );
    if (taken[0]!.n) throw DomainError.conflict('str_code', 'a GTA with this UF, series and number already exists');
    const gta = tx.create(Gta, {
      ...(n.id ? { id: n.id } : {}),
      organization_id: n.origin?.organization_id ?? null,
      str_code: n.str_code,
      int_animal_quantity: n.int_animal_quantity,
      str_federative_unit: n.str_federative_unit,
      str_series: n.str_series,
      str_purpose: n.str_purpose,
      str_species: n.str_species,
      str_external_id: n.str_external_id,
      from_control_unit_id: n.from?.id ?? null,
      to_control_unit_id: n.to?.id ?? null,
      from_establishment_id: n.origin?.id ?? null,
      to_establishment_id: n.destination?.id ?? null,
      ts_issued_at: n.ts_issued_at,
      ts_valid_until: n.ts_valid_until,
      responsible_user_id: n.responsible_user_id,
      issuer_user_id: n.issuer_user_id,
    });
    tx.persist(gta);
    await tx.flush();
    const { from, to, origin, destination, id: _id, ...changes } = n;
    void _id;
    await appendEvent(tx, {
      type: 'GTA_CREATED',
      recordType: 'Gta',
      recordId: gta.id,
      actorId: actor.userId,
      payload: {
        changes,
        refs: { organization_id: origin?.organization_id ?? null, from_control_unit_id: from?.id ?? null, to_control_unit_id: to?.id ?? null, from_establishment_id: origin?.id ?? null, to_establishment_id: destination?.id ?? null },
        ...(hash ? { body_hash: hash } : {}),
      },
    });
    return gta;
  }

  /** POST /api/gtas/:id/cancel: ISSUED → CANCELLED by its issuer, an authority of the UF or an administrator. */
  async cancel(em: EntityManager, actor: Actor, id: string): Promise<Gta> {
    const gta = await this.get(em, actor, id);
    gtaPolicy.canCancel(actor, gta, await ufOfCounty(em, actor.countyId));
    return em.transactional((tx) => this.markCancelled(tx, actor, gta, 'ISSUER'));
  }

  /** Moves a visible GTA to CANCELLED with its event; INVALID_STATE from anything but ISSUED (an expired one included). */
  async markCancelled(tx: EntityManager, actor: Actor, gta: Gta, by: 'ISSUER' | 'STATE', evenIfExpired = false): Promise<Gta> {
    const locked = await tx.execute<{ str_status: string; ts_valid_until: Date }[]>('select str_status, ts_valid_until from gta where id = ? for update', [gta.id]);
    const current = evenIfExpired ? (locked[0]!.str_status as GtaStatus) : effectiveStatus(locked[0]!);
    const problem = cancelProblem(current);
    if (problem) throw new DomainError('INVALID_STATE', { str_status: current, message: problem });
    gta.str_status = 'CANCELLED';
    gta.ts_updated_at = new Date();
    await tx.execute('update gta set str_status = ?, ts_updated_at = ? where id = ?', ['CANCELLED', gta.ts_updated_at, gta.id]);
    await appendEvent(tx, { type: 'GTA_CANCELLED', recordType: 'Gta', recordId: gta.id, actorId: actor.userId, payload: { changes: { str_status: 'CANCELLED' }, refs: { organization_id: gta.organization_id, by } } });
    return gta;
  }
}

export function quantityAndEnums(check: Checker, prefix: string, quantity: unknown, purpose: unknown, species: unknown): void {
  if (quantity !== undefined && quantity !== null) check.when(!Number.isInteger(quantity) || (quantity as number) < 1, `${prefix}int_animal_quantity`, 'must be a positive integer');
  if (purpose !== undefined && purpose !== null && purpose !== '') check.when(!oneOf(GTA_PURPOSES, purpose), `${prefix}str_purpose`, `must be one of ${GTA_PURPOSES.join(', ')}`);
  if (species !== undefined && species !== null) check.when(!oneOf(GTA_SPECIES, species), `${prefix}str_species`, `must be one of ${GTA_SPECIES.join(', ')}`);
}

export async function ufOfCounty(em: EntityManager, countyId: string | null): Promise<string | null> {
  if (!countyId) return null;
  const rows = await em.execute<{ str_federative_unit: string }[]>('select str_federative_unit from county where id = ?', [countyId]);
  return rows[0]?.str_federative_unit ?? null;
}
