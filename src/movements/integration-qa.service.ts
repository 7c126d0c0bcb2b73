import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { federativeUnitOf } from '../places/county.reader.js';
import { DomainError } from '../shared/errors.js';
import type { Gta } from './gta.entity.js';
import { gtaPolicy } from './gta.policy.js';
import type { IntegrationGtaInput, IntegrationService } from './integration.service.js';

/** GET /api/v1/qa/ping: who the token is, where it integrates, and the server's clock. */
export interface QaPing {
  user_id: string;
  organization_id: string | null;
  str_user_type: string;
  str_federative_unit: string | null;
  /** Whether the state integration (gta/notificar, gta/cancelar, propriedades...) answers this caller, and why not. */
  bl_integration_allowed: boolean;
  str_integration_refusal: string | null;
  ts_server_time: Date;
}

/** Thrown to end a dry run's transaction: whatever it wrote is rolled back. */
class DryRunDone<T> {
  constructor(readonly result: T) {}
}

/**
 * Integration QA (`/api/v1/qa/...`): what a state's integrator checks before going live. The GTA
 * calls run the real integration code (IntegrationService) inside a transaction that is always
 * rolled back, so they validate and answer exactly as the real ones, and write nothing: no GTA, no
 * event, no lock held past the call. Sequences are not transactional: a dry run may leave a gap in
 * the event log's numbering, as any rolled-back write does.
 */
export class IntegrationQaService {
  constructor(private readonly integration: IntegrationService) {}

  async ping(db: Db, actor: Actor): Promise<QaPing> {
    const uf = await federativeUnitOf(db, actor.countyId);
    let refusal: string | null = null;
    try {
      gtaPolicy.canIntegrate(actor);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      refusal = typeof e.detail === 'string' ? e.detail : e.code;
    }
    if (!refusal && !uf) refusal = 'the integration user has no county, so no federative unit';
    return {
      user_id: actor.userId,
      organization_id: actor.organizationId,
      str_user_type: actor.userType,
      str_federative_unit: uf,
      bl_integration_allowed: refusal === null,
      str_integration_refusal: refusal,
      ts_server_time: new Date(),
    };
  }

  /** What POST /api/v1/gta/notificar would store (or its error), stored nowhere. */
  notificar(em: EntityManager, actor: Actor, input: IntegrationGtaInput): Promise<Gta> {
    return dryRun(em, (tx) => this.integration.notificar(tx, actor, input));
  }

  /** What POST /api/v1/gta/cancelar would answer (or its error), changing nothing. */
  cancelar(em: EntityManager, actor: Actor, input: IntegrationGtaInput): Promise<Gta> {
    return dryRun(em, (tx) => this.integration.cancelar(tx, actor, input));
  }
}

/** Runs `work` in a transaction and rolls it back whatever happens; its answer or its error comes out. */
async function dryRun<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  try {
    await em.transactional(async (tx) => {
      throw new DryRunDone(await work(tx));
    });
  } catch (e) {
    if (e instanceof DryRunDone) return e.result as T;
    throw e;
  }
  throw new Error('unreachable: a dry run always rolls back');
}
