import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound.js';
import type { Include } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { DomainError } from '../shared/errors.js';
import { appendEvents } from '../shared/events.js';
import type { PageInput } from '../shared/pagination.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage } from '../shared/scoped-query.js';
import type { Filters, SearchSpec } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { Sharing } from './sharing.entity.js';
import { checkSharingInput, checkWindow, type CheckedAccess, type SharingChanges, type SharingInput } from './sharing.input.js';
import { sharingPolicy } from './sharing.policy.js';
import { sharingSource } from './sharing.reader.js';
import { SHARING_STATUSES, sharingStatusCondition, type SharingStatus } from './sharing.rules.js';

export const SHARING_SEARCH: SearchSpec = {
  alias: 's',
  exact: { id: 'uuid', str_name: 'text', bl_deactivated_manually: 'boolean' },
  ranges: ['ts_created_at', 'ts_updated_at', 'ts_scheduled_to', 'ts_expires_at'],
  query: ['str_name', 'str_description'],
  computed: {
    establishment_id: { kind: 'uuid', sql: 'exists (select 1 from sharing_access fa where fa.sharing_id = s.id and fa.establishment_id = ?)' },
    control_unit_id: { kind: 'uuid', sql: 'exists (select 1 from sharing_access fa where fa.sharing_id = s.id and fa.control_unit_id = ?)' },
    user_id: { kind: 'uuid', sql: 'exists (select 1 from sharing_grantee fg where fg.sharing_id = s.id and fg.user_id = ?)' },
    organization_id: { kind: 'uuid', sql: 'exists (select 1 from sharing_grantee fg where fg.sharing_id = s.id and fg.organization_id = ?)' },
  },
};

/**
 * The filters the doors declare (GraphQL's typed `where`): the search's, and `str_status`, which is
 * no column: page() takes it out and judges it at the request's instant, so its `sql` is never built.
 */
export const SHARING_FILTERS: SearchSpec = { ...SHARING_SEARCH, computed: { ...SHARING_SEARCH.computed, str_status: { kind: 'text', sql: 'true' } } };

/** An access with its establishment known (a unit's is its own). */
type ResolvedAccess = Omit<CheckedAccess, 'establishment_id'> & { establishment_id: string };

/** Sharings (DOMAIN.md, "Access between organizations"): made by an organization's owners and managers; what they grant is read in the policies (sharing.policy.ts). */
export class SharingService {
  read(db: Db, actor: Actor, id: string, include: Include): Promise<Read<Sharing>> {
    return readVisible(db, actor, sharingSource, sharingPolicy.scope(actor), id, 'sharing', include);
  }

  /** str_status filters by the status derived at the request's instant. */
  page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Sharing>> {
    const { str_status: status, ...rest } = filters ?? {};
    const scope = sharingPolicy.scope(actor);
    if (status === undefined || status === null) return readVisiblePage(db, actor, sharingSource, scope, SHARING_SEARCH, rest, page, options);
    if (typeof status !== 'string' || !(SHARING_STATUSES as readonly string[]).includes(status)) throw DomainError.field('str_status', `must be one of ${SHARING_STATUSES.join(', ')}`);
    const condition = sharingStatusCondition(status as SharingStatus, actor.now);
    return readVisiblePage(db, actor, sharingSource, { sql: `${scope.sql} and ${condition.sql}`, params: [...scope.params, ...condition.params] }, SHARING_SEARCH, rest, page, options);
  }

  async create(em: EntityManager, actor: Actor, input: SharingInput): Promise<Sharing> {
    const organizationId = sharingPolicy.canCreate(actor);
    const changes = checkSharingInput(input, true);
    checkWindow(changes.ts_scheduled_to ?? null, changes.ts_expires_at ?? null);
    const id = input.id?.toLowerCase();
    const hash = bodyHash({ ...input, id: undefined });
    return em.transactional(async (tx) => {
      if (id) {
        const replayed = await replayCreate(tx, Sharing, 'sharing', 'Sharing', 'SHARING_CREATED', id, hash, (r) => r.organization_id === organizationId);
        if (replayed) return replayed;
      }
      const accesses = await resolveAccesses(tx, organizationId, changes.accesses ?? []);
      await checkGrantees(tx, changes);
      const sharing = tx.create(Sharing, {
        ...(id ? { id } : {}),
        organization_id: organizationId,
        author_user_id: actor.userId,
        str_name: changes.str_name!,
        str_description: changes.str_description ?? null,
        bl_deactivated_manually: changes.bl_deactivated_manually ?? false,
        ts_scheduled_to: changes.ts_scheduled_to ?? null,
        ts_expires_at: changes.ts_expires_at ?? null,
      });
      tx.persist(sharing);
      await tx.flush();
      await writeLists(tx, sharing.id, changes, accesses);
      await appendEvents(tx, [{ type: 'SHARING_CREATED', recordType: 'Sharing', recordId: sharing.id, actorId: actor.userId, payload: { changes: described(changes, accesses), refs: { organization_id: organizationId }, body_hash: hash } }]);
      return sharing;
    });
  }

  /** PUT and PATCH alike: the fields given change, a list given replaces the one stored. */
  async update(em: EntityManager, actor: Actor, id: string, input: SharingInput): Promise<Sharing> {
    const changes = checkSharingInput(input, false);
    return em.transactional(async (tx) => {
      const sharing = await this.manageable(tx, actor, id);
      checkWindow(changes.ts_scheduled_to !== undefined ? changes.ts_scheduled_to : sharing.ts_scheduled_to, changes.ts_expires_at !== undefined ? changes.ts_expires_at : sharing.ts_expires_at);
      const accesses = changes.accesses ? await resolveAccesses(tx, sharing.organization_id, changes.accesses) : null;
      await checkGrantees(tx, changes);
      const row = sharing as unknown as Record<string, unknown>;
      for (const f of ['str_name', 'str_description', 'bl_deactivated_manually', 'ts_scheduled_to', 'ts_expires_at'] as const) if (changes[f] !== undefined) row[f] = changes[f];
      sharing.ts_updated_at = new Date();
      tx.persist(sharing);
      await tx.flush();
      await writeLists(tx, sharing.id, changes, accesses);
      await appendEvents(tx, [{ type: 'SHARING_UPDATED', recordType: 'Sharing', recordId: sharing.id, actorId: actor.userId, payload: { changes: described(changes, accesses), refs: { organization_id: sharing.organization_id } } }]);
      return sharing;
    });
  }

  /** The sharing goes, and every access it gave with it. */
  async remove(em: EntityManager, actor: Actor, id: string): Promise<void> {
    await em.transactional(async (tx) => {
      const sharing = await this.manageable(tx, actor, id);
      await tx.execute('delete from sharing where id = ?', [sharing.id]);
      await appendEvents(tx, [{ type: 'SHARING_DELETED', recordType: 'Sharing', recordId: sharing.id, actorId: actor.userId, payload: { refs: { organization_id: sharing.organization_id } } }]);
    });
  }

  /** The sharing, locked, when the caller sees it (404) and manages it (403). */
  private async manageable(tx: EntityManager, actor: Actor, id: string): Promise<Sharing> {
    const sharing = await mustFindVisible(tx, Sharing, 'sharing s', sharingPolicy.scope(actor), id.toLowerCase(), 'sharing', { forUpdate: true });
    sharingPolicy.canManage(actor, sharing);
    return sharing;
  }
}

/**
 * Each access's place, which must be the sharing organization's (else 422 naming the field, the
 * same answer as for an id that does not exist): one statement for every access of the body.
 */
async function resolveAccesses(tx: EntityManager, organizationId: string, accesses: CheckedAccess[]): Promise<ResolvedAccess[]> {
  if (!accesses.length) return [];
  const units = accesses.flatMap((a) => (a.control_unit_id ? [a.control_unit_id] : []));
  const establishments = accesses.flatMap((a) => (a.establishment_id ? [a.establishment_id] : []));
  const rows = await executeBound<{ id: string; establishment_id: string; kind: 'unit' | 'establishment' }>(
    tx,
    `select cu.id, cu.establishment_id, 'unit' as kind from control_unit cu join establishment e on e.id = cu.establishment_id where cu.id = any(?::uuid[]) and e.organization_id = ?
     union all
     select e.id, e.id, 'establishment' from establishment e where e.id = any(?::uuid[]) and e.organization_id = ?`,
    [units, organizationId, establishments, organizationId],
  );
  const unitEstablishment = new Map(rows.filter((r) => r.kind === 'unit').map((r) => [r.id, r.establishment_id]));
  const owned = new Set(rows.filter((r) => r.kind === 'establishment').map((r) => r.id));
  const check = new Checker();
  const out: ResolvedAccess[] = [];
  const seen = new Set<string>();
  for (const a of accesses) {
    let establishmentId = a.establishment_id;
    if (a.control_unit_id) {
      const of = unitEstablishment.get(a.control_unit_id);
      if (!of) check.add(`${a.path}.control_unit_id`, 'no such control unit of your organization');
      else if (establishmentId && establishmentId !== of) check.add(`${a.path}.establishment_id`, 'is not the establishment of control_unit_id');
      establishmentId = of ?? null;
    } else if (establishmentId && !owned.has(establishmentId)) check.add(`${a.path}.establishment_id`, 'no such establishment of your organization');
    if (!establishmentId) continue;
    const key = `${establishmentId}|${a.control_unit_id}|${a.str_scope}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...a, establishment_id: establishmentId });
  }
  check.throwIfAny();
  return out;
}

/** Every granted user and organization must exist (422 naming the item otherwise): one statement. */
async function checkGrantees(tx: EntityManager, changes: SharingChanges): Promise<void> {
  const users = changes.lst_user_ids ?? [];
  const orgs = changes.lst_org_ids ?? [];
  if (!users.length && !orgs.length) return;
  const rows = await executeBound<{ id: string; kind: string }>(
    tx,
    `select u.id, 'user' as kind from "user" u where u.id = any(?::uuid[]) union all select o.id, 'org' from organization o where o.id = any(?::uuid[])`,
    [users, orgs],
  );
  const found = new Set(rows.map((r) => `${r.kind}:${r.id}`));
  const check = new Checker();
  users.forEach((id, i) => check.when(!found.has(`user:${id}`), `lst_user_ids[${i}]`, 'no such user'));
  orgs.forEach((id, i) => check.when(!found.has(`org:${id}`), `lst_org_ids[${i}]`, 'no such organization'));
  check.throwIfAny();
}

/** The grantee and access lists a body gives replace the stored ones, set-based. */
async function writeLists(tx: EntityManager, sharingId: string, changes: SharingChanges, accesses: ResolvedAccess[] | null): Promise<void> {
  if (changes.lst_user_ids) {
    await tx.execute('delete from sharing_grantee where sharing_id = ? and user_id is not null', [sharingId]);
    if (changes.lst_user_ids.length) await executeBound(tx, 'insert into sharing_grantee (sharing_id, user_id) select ?, unnest(?::uuid[])', [sharingId, changes.lst_user_ids]);
  }
  if (changes.lst_org_ids) {
    await tx.execute('delete from sharing_grantee where sharing_id = ? and organization_id is not null', [sharingId]);
    if (changes.lst_org_ids.length) await executeBound(tx, 'insert into sharing_grantee (sharing_id, organization_id) select ?, unnest(?::uuid[])', [sharingId, changes.lst_org_ids]);
  }
  if (accesses) {
    await tx.execute('delete from sharing_access where sharing_id = ?', [sharingId]);
    if (accesses.length) {
      await executeBound(
        tx,
        `insert into sharing_access (sharing_id, establishment_id, control_unit_id, str_scope, int_position)
         select ?, x.establishment_id, x.control_unit_id, x.str_scope, x.n from unnest(?::uuid[], ?::uuid[], ?::text[]) with ordinality as x(establishment_id, control_unit_id, str_scope, n)`,
        [sharingId, accesses.map((a) => a.establishment_id), accesses.map((a) => a.control_unit_id), accesses.map((a) => a.str_scope)],
      );
    }
  }
}

/** The event's `changes`: what the body set, the accesses as stored. */
function described(changes: SharingChanges, accesses: ResolvedAccess[] | null): Record<string, unknown> {
  const out: Record<string, unknown> = { ...changes };
  delete out.accesses;
  if (accesses) out.accesses = accesses.map((a) => ({ establishment_id: a.establishment_id, control_unit_id: a.control_unit_id, str_scope: a.str_scope }));
  return out;
}
