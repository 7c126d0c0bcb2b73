import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { establishmentPolicy } from '../places/establishment.policy.js';
import { ESTABLISHMENT_UNRESTRICTED_SEARCH } from '../places/establishment.service.js';
import { establishmentSource } from '../places/establishment.reader.js';
import { federativeUnitOf } from '../places/county.reader.js';
import type { Db } from '../db/sql.js';
import { DomainError } from '../shared/errors.js';
import type { PageInput } from '../shared/pagination.js';
import { readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import { Checker } from '../shared/validation.js';
import { Gta } from './gta.entity.js';
import { gtaPolicy } from './gta.policy.js';
import { quantityAndEnums, ufOfCounty, type GtaService } from './gta.service.js';
import { egressForState, establishmentInUf, ingressForState } from './integration.reader.js';
import type { AnimalsEgress } from './animals-egress.entity.js';
import type { AnimalsIngress } from './animals-ingress.entity.js';
import type { Include } from '../db/reader.js';
import { appendEvent } from '../shared/events.js';

/**
 * Integration Notificar / Cancelar of interface.md: ds_serie_gta, ds_uf, id_gta, nr_gta (ds_uf and
 * nr_gta name the GTA). Notificar also takes, optionally, what the GTA carries besides:
 * int_animal_quantity, str_from_control_unit_code, str_to_control_unit_code, str_purpose,
 * str_species (BOVINE), ts_issued_at (now), ts_valid_until. A GTA notified without them is
 * registered and completed later, by a second notification or by the egress that uses it.
 */
export interface IntegrationGtaInput {
  ds_serie_gta?: string | null;
  ds_uf?: string | null;
  id_gta?: string | null;
  nr_gta?: string | null;
  int_animal_quantity?: number | null;
  str_from_control_unit_code?: string | null;
  str_to_control_unit_code?: string | null;
  str_purpose?: string | null;
  str_species?: string | null;
  ts_issued_at?: Date | null;
  ts_valid_until?: Date | null;
}

const trimmed = (v: string | null | undefined): string | null => (typeof v === 'string' ? v.trim() || null : null);

/** The state integration (public API, Portuguese paths): INTEGRATION and AUTHORITY users, scoped to the UF of their county. */
export class IntegrationService {
  constructor(private readonly gtas: GtaService) {}

  /** The caller's UF (its county's, looked up by `federativeUnitOfCounty`); 403 for anyone else. */
  private async ufOf(actor: Actor, federativeUnitOfCounty: (countyId: string | null) => Promise<string | null>): Promise<string> {
    gtaPolicy.canIntegrate(actor);
    const uf = await federativeUnitOfCounty(actor.countyId);
    if (!uf) throw DomainError.forbidden('the integration user has no county, so no federative unit');
    return uf;
  }

  /** The caller's UF for a read: through the read side, never the request's EntityManager. */
  private ufRead(db: Db, actor: Actor): Promise<string> {
    return this.ufOf(actor, (countyId) => federativeUnitOf(db, countyId));
  }

  /** GET /api/v1/propriedades: the unrestricted establishment search, limited to the caller's UF. */
  async propriedades(db: Db, actor: Actor, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Establishment>> {
    const uf = await this.ufRead(db, actor);
    const base = establishmentPolicy.unrestrictedScope(actor);
    const inUf = establishmentInUf(uf);
    const scope = { sql: `${base.sql} and ${inUf.sql}`, params: [...base.params, ...inUf.params] };
    return readVisiblePage(db, actor, establishmentSource, scope, ESTABLISHMENT_UNRESTRICTED_SEARCH, {}, page, options);
  }

  /**
   * POST /api/v1/gta/notificar: registers the GTA the state issued. Notified again (same UF, series
   * and number), it answers the stored GTA, completed with what the stored one lacked; a value that
   * contradicts a stored one is a CONFLICT naming the field.
   */
  async notificar(em: EntityManager, actor: Actor, input: IntegrationGtaInput): Promise<Gta> {
    const { uf, series, code } = await this.key(em, actor, input);
    const check = new Checker();
    quantityAndEnums(check, '', input.int_animal_quantity, input.str_purpose, input.str_species);
    if (input.ts_issued_at && input.ts_valid_until) check.when(input.ts_valid_until.getTime() < input.ts_issued_at.getTime(), 'ts_valid_until', 'must not be before ts_issued_at');
    const [from, to] = await Promise.all([unitByCode(em, input.str_from_control_unit_code), unitByCode(em, input.str_to_control_unit_code)]);
    if (from === undefined) check.add('str_from_control_unit_code', 'no such control unit');
    if (to === undefined) check.add('str_to_control_unit_code', 'no such control unit');
    if (from && to && from.id === to.id) check.add('str_to_control_unit_code', 'must differ from str_from_control_unit_code');
    check.throwIfAny();
    const [origin, destination] = await Promise.all([from ? em.findOneOrFail(Establishment, { id: from.establishment_id }) : null, to ? em.findOneOrFail(Establishment, { id: to.establishment_id }) : null]);
    return em.transactional(async (tx) => {
      // One notification of a GTA at a time: a concurrent replay waits, then finds it.
      await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`gta:${uf}:${series ?? ''}:${code}`]);
      const given = {
        int_animal_quantity: input.int_animal_quantity ?? null,
        str_purpose: input.str_purpose ?? null,
        str_external_id: trimmed(input.id_gta),
        from_control_unit_id: from?.id ?? null,
        to_control_unit_id: to?.id ?? null,
        from_establishment_id: origin?.id ?? null,
        to_establishment_id: destination?.id ?? null,
        organization_id: origin?.organization_id ?? null,
        ts_valid_until: input.ts_valid_until ?? null,
      };
      const existing = await this.find(tx, uf, series, code);
      if (existing) return this.complete(tx, actor, existing, given);
      return this.gtas.insert(tx, actor, {
        str_code: code,
        int_animal_quantity: given.int_animal_quantity,
        str_federative_unit: uf,
        str_series: series,
        str_purpose: given.str_purpose,
        str_species: input.str_species ?? 'BOVINE',
        str_external_id: given.str_external_id,
        from: from ?? null,
        to: to ?? null,
        origin,
        destination,
        ts_issued_at: input.ts_issued_at ?? new Date(),
        ts_valid_until: given.ts_valid_until,
        responsible_user_id: null,
        issuer_user_id: actor.userId,
      }, null);
    });
  }

  /** Fills what the stored GTA lacks from a later notification; one GTA_COMPLETED event when anything was filled. */
  private async complete(tx: EntityManager, actor: Actor, gta: Gta, given: Partial<Record<keyof Gta, unknown>>): Promise<Gta> {
    const filled: Record<string, unknown> = {};
    const stored = gta as unknown as Record<string, unknown>;
    for (const [field, value] of Object.entries(given)) {
      if (value === null || value === undefined) continue;
      const current = stored[field];
      const same = current instanceof Date && value instanceof Date ? current.getTime() === value.getTime() : current === value;
      if (current === null) filled[field] = value;
      else if (!same && field !== 'from_establishment_id' && field !== 'to_establishment_id' && field !== 'organization_id') throw DomainError.conflict(NOTIFIED_FIELD[field] ?? field, 'differs from what the GTA was notified with');
    }
    if (!Object.keys(filled).length) return gta;
    Object.assign(gta, filled, { ts_updated_at: new Date() });
    await tx.flush();
    await appendEvent(tx, { type: 'GTA_COMPLETED', recordType: 'Gta', recordId: gta.id, actorId: actor.userId, payload: { changes: filled, refs: { by: 'STATE' } } });
    return gta;
  }

  /** POST /api/v1/gta/cancelar: ISSUED → CANCELLED (200); already CANCELLED answers it again; 404 unknown; 422 once animals were dispatched. */
  async cancelar(em: EntityManager, actor: Actor, input: IntegrationGtaInput): Promise<Gta> {
    const { uf, series, code } = await this.key(em, actor, input);
    const gta = await this.find(em, uf, series, code);
    if (!gta) throw DomainError.notFound('gta');
    if (gta.str_status === 'CANCELLED') return gta;
    // The state may cancel what it issued even after ts_valid_until: only dispatched animals stop it.
    return em.transactional((tx) => this.gtas.markCancelled(tx, actor, gta, 'STATE', true));
  }

  /** GET /api/v1/entrada_animais/:id: an animals ingress of the caller's UF by its uuid or by the id_gta it was received under (the latest). */
  async entradaAnimais(db: Db, actor: Actor, id: string, include: Include): Promise<Read<AnimalsIngress>> {
    return ingressForState(db, actor, await this.ufRead(db, actor), id, include);
  }

  /** GET /api/v1/saida_animais/:id: an animals egress of the caller's UF by its uuid or by the id_gta it left under (the latest). */
  async saidaAnimais(db: Db, actor: Actor, id: string, include: Include): Promise<Read<AnimalsEgress>> {
    return egressForState(db, actor, await this.ufRead(db, actor), id, include);
  }

  private async key(em: EntityManager, actor: Actor, input: IntegrationGtaInput): Promise<{ uf: string; series: string | null; code: string }> {
    const callerUf = await this.ufOf(actor, (countyId) => ufOfCounty(em, countyId));
    const check = new Checker();
    check.required('ds_uf', input.ds_uf).required('nr_gta', input.nr_gta);
    check.throwIfAny();
    const uf = trimmed(input.ds_uf)!.toUpperCase();
    if (uf !== callerUf) throw DomainError.forbidden(`ds_uf must be the caller's federative unit (${callerUf})`);
    return { uf, series: trimmed(input.ds_serie_gta), code: trimmed(input.nr_gta)! };
  }

  private async find(em: EntityManager, uf: string, series: string | null, code: string): Promise<Gta | null> {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from gta where str_federative_unit = ? and coalesce(str_series, '') = ? and str_code = ?`, [uf, series ?? '', code]);
    return rows[0] ? em.map(Gta, rows[0] as never) : null;
  }
}

/** The body's names for the GTA's fields, so a CONFLICT names what the caller sent. */
const NOTIFIED_FIELD: Record<string, string> = {
  str_external_id: 'id_gta',
  from_control_unit_id: 'str_from_control_unit_code',
  to_control_unit_id: 'str_to_control_unit_code',
};

/** A unit by its code: null when no code was given, undefined when no unit has it. */
async function unitByCode(em: EntityManager, code: string | null | undefined): Promise<ControlUnit | null | undefined> {
  const c = trimmed(code);
  if (!c) return null;
  return (await em.findOne(ControlUnit, { str_code: c })) ?? undefined;
}
