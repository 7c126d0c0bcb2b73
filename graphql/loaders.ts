import DataLoader from 'dataloader';
import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../src/identity/actor.js';
import { User } from '../src/identity/user.entity.js';
import { ControlUnit } from '../src/places/control-unit.entity.js';
import { Gta } from '../src/movements/gta.entity.js';
import { gtaPolicy } from '../src/movements/gta.policy.js';
import { County } from '../src/places/county.entity.js';
import { Establishment } from '../src/places/establishment.entity.js';
import { controlUnitPolicy, establishmentPolicy } from '../src/places/establishment.policy.js';
import { NOTHING, type Scope } from '../src/shared/scoped-query.js';

export interface OrganizationRef {
  id: string;
  str_name: string;
  str_role: string;
}

const byKey = <T>(keys: readonly string[], rows: T[], key: (row: T) => string): (T | null)[] => {
  const map = new Map(rows.map((r) => [key(r), r]));
  return keys.map((k) => map.get(k) ?? null);
};

export const groupedBy = <T>(keys: readonly string[], rows: T[], key: (row: T) => string): T[][] => {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const list = map.get(key(r)) ?? [];
    list.push(r);
    map.set(key(r), list);
  }
  return keys.map((k) => map.get(k) ?? []);
};

/**
 * One loader per request and relation: a relation costs one statement per request, not per row.
 * `unrestricted*` loaders read past every policy and serve only the public views (EstablishmentUnrestricted,
 * a GTA's or an invite's unit); `visible*` loaders apply the caller's policy scope in the same statement.
 */
export function createLoaders(em: EntityManager, actor: Actor | null) {
  const establishmentScope: Scope = actor ? establishmentPolicy.scope(actor) : NOTHING;
  const unitScope: Scope = actor ? controlUnitPolicy.scope(actor) : NOTHING;
  const gtaScope: Scope = actor ? gtaPolicy.scope(actor) : NOTHING;
  const units = async (where: string, params: unknown[]) =>
    (await em.execute<Record<string, unknown>[]>(`select cu.* from control_unit cu where ${where} order by cu.str_code, cu.id`, params)).map((r) => em.map(ControlUnit, r as never));

  const byIdLoaders = new Map<EntityClass<object>, DataLoader<string, object | null>>();

  return {
    /** Records reached by a foreign key from a record the caller already sees (a tag's reservation, an animal's tag). */
    byId<T extends object>(entity: EntityClass<T>): DataLoader<string, T | null> {
      let loader = byIdLoaders.get(entity as EntityClass<object>);
      if (!loader) {
        loader = new DataLoader<string, object | null>(async (ids) => byKey(ids, (await em.find(entity, { id: { $in: [...ids] } } as never)) as (T & { id: string })[], (r) => r.id));
        byIdLoaders.set(entity as EntityClass<object>, loader);
      }
      return loader as DataLoader<string, T | null>;
    },
    userById: new DataLoader<string, User | null>(async (ids) => byKey(ids, await em.find(User, { id: { $in: [...ids] } }), (u) => u.id)),
    organizationsOfUser: new DataLoader<string, OrganizationRef[]>(async (userIds) => {
      const rows = await em.execute<(OrganizationRef & { user_id: string })[]>(
        `select m.user_id, o.id, o.str_name, m.str_role from membership m join organization o on o.id = m.organization_id
          where m.user_id in (?) order by o.str_name, o.id`,
        [[...userIds]],
      );
      return groupedBy(userIds, rows, (r) => r.user_id).map((list) => list.map((r) => ({ id: r.id, str_name: r.str_name, str_role: r.str_role })));
    }),
    countyById: new DataLoader<string, County | null>(async (ids) => byKey(ids, await em.find(County, { id: { $in: [...ids] } }), (c) => c.id)),
    unrestrictedEstablishmentById: new DataLoader<string, Establishment | null>(async (ids) => byKey(ids, await em.find(Establishment, { id: { $in: [...ids] } }), (e) => e.id)),
    visibleEstablishmentById: new DataLoader<string, Establishment | null>(async (ids) => {
      const rows = await em.execute<Record<string, unknown>[]>(`select e.* from establishment e where e.id in (?) and ${establishmentScope.sql}`, [[...ids], ...establishmentScope.params]);
      return byKey(ids, rows.map((r) => em.map(Establishment, r as never)), (e) => e.id);
    }),
    unrestrictedControlUnitById: new DataLoader<string, ControlUnit | null>(async (ids) => byKey(ids, await em.find(ControlUnit, { id: { $in: [...ids] } }), (u) => u.id)),
    unrestrictedControlUnitsOfEstablishment: new DataLoader<string, ControlUnit[]>(async (establishmentIds) =>
      groupedBy(establishmentIds, await units('cu.establishment_id in (?)', [[...establishmentIds]]), (u) => u.establishment_id),
    ),
    visibleControlUnitsOfEstablishment: new DataLoader<string, ControlUnit[]>(async (establishmentIds) =>
      groupedBy(establishmentIds, await units(`cu.establishment_id in (?) and ${unitScope.sql}`, [[...establishmentIds], ...unitScope.params]), (u) => u.establishment_id),
    ),
    /**
     * Keyed by invite (one the caller already sees): the GTA it is for, when the caller sees that GTA
     * or the invite's organization is its origin's or destination's: the invite shares that GTA's
     * movement with the invitee. A GTA neither sees (gta_id is not checked on write) stays hidden.
     */
    gtaOfInvite: new DataLoader<string, Gta | null>(async (inviteIds) => {
      const rows = await em.execute<({ invite_id: string } & Record<string, unknown>)[]>(
        `select i.id as invite_id, g.* from invite i join gta g on g.id = i.gta_id
          where i.id in (?) and (${gtaScope.sql} or ${gtaPolicy.isParty('i.organization_id')})`,
        [[...inviteIds], ...gtaScope.params],
      );
      const gtas = rows.map(({ invite_id, ...gta }) => ({ invite_id, gta: em.map(Gta, gta as never) }));
      return byKey(inviteIds, gtas, (r) => r.invite_id).map((r) => r?.gta ?? null);
    }),
    /** Keyed by control unit: its responsible user (e-mail, document) only when the caller sees the unit. */
    visibleResponsibleUserOfUnit: new DataLoader<string, User | null>(async (unitIds) => {
      const rows = await em.execute<({ control_unit_id: string } & Record<string, unknown>)[]>(
        `select cu.id as control_unit_id, u.* from control_unit cu join "user" u on u.id = cu.responsible_user_id where cu.id in (?) and ${unitScope.sql}`,
        [[...unitIds], ...unitScope.params],
      );
      const users = rows.map(({ control_unit_id, ...user }) => ({ control_unit_id, user: em.map(User, user as never) }));
      return byKey(unitIds, users, (r) => r.control_unit_id).map((r) => r?.user ?? null);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/** The name of a unit's establishment, read past every policy: a record names where it happened. */
export async function establishmentNameOfUnit(loaders: Loaders, unitId: string): Promise<string | null> {
  const unit = await loaders.unrestrictedControlUnitById.load(unitId);
  return unit ? ((await loaders.unrestrictedEstablishmentById.load(unit.establishment_id))?.str_name ?? null) : null;
}
