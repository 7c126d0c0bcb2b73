import DataLoader from 'dataloader';
import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../src/identity/user.entity.js';
import { ControlUnit } from '../src/places/control-unit.entity.js';
import { County } from '../src/places/county.entity.js';
import { Establishment } from '../src/places/establishment.entity.js';

export interface OrganizationRef {
  id: string;
  str_name: string;
  str_role: string;
}

/** One loader per request and relation: a relation costs one statement per request, not per row. */
export function createLoaders(em: EntityManager) {
  const byIdLoaders = new Map<EntityClass<object>, DataLoader<string, object | null>>();
  return {
    /** Records reached by a foreign key from a record the caller already sees (a tag's reservation, an animal's tag). */
    byId<T extends object>(entity: EntityClass<T>): DataLoader<string, T | null> {
      let loader = byIdLoaders.get(entity as EntityClass<object>);
      if (!loader) {
        loader = new DataLoader<string, object | null>(async (ids) => {
          const rows = (await em.find(entity, { id: { $in: [...ids] } } as never)) as (T & { id: string })[];
          const found = new Map(rows.map((r) => [r.id, r]));
          return ids.map((id) => found.get(id) ?? null);
        });
        byIdLoaders.set(entity as EntityClass<object>, loader);
      }
      return loader as DataLoader<string, T | null>;
    },

    userById: new DataLoader<string, User | null>(async (ids) => {
      const rows = await em.find(User, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((u) => [u.id, u]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    organizationsOfUser: new DataLoader<string, OrganizationRef[]>(async (userIds) => {
      const rows = await em.execute<(OrganizationRef & { user_id: string })[]>(
        `select m.user_id, o.id, o.str_name, m.str_role from membership m join organization o on o.id = m.organization_id
          where m.user_id in (?) order by o.str_name, o.id`,
        [[...userIds]],
      );
      const byUser = new Map<string, OrganizationRef[]>();
      for (const r of rows) {
        const list = byUser.get(r.user_id) ?? [];
        list.push({ id: r.id, str_name: r.str_name, str_role: r.str_role });
        byUser.set(r.user_id, list);
      }
      return userIds.map((id) => byUser.get(id) ?? []);
    }),
    countyById: new DataLoader<string, County | null>(async (ids) => {
      const rows = await em.find(County, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((c) => [c.id, c]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    /** Reached from a record the caller already sees (a control unit's own establishment), so not scoped again. */
    establishmentById: new DataLoader<string, Establishment | null>(async (ids) => {
      const rows = await em.find(Establishment, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((e) => [e.id, e]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    /** Reached from a record the caller already sees (a GTA's origin and destination units), so not scoped again. */
    controlUnitById: new DataLoader<string, ControlUnit | null>(async (ids) => {
      const rows = await em.find(ControlUnit, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((u) => [u.id, u]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    controlUnitsOfEstablishment: new DataLoader<string, ControlUnit[]>(async (establishmentIds) => {
      const rows = await em.find(ControlUnit, { establishment_id: { $in: [...establishmentIds] } }, { orderBy: { str_code: 'asc', id: 'asc' } });
      const byEstablishment = new Map<string, ControlUnit[]>();
      for (const u of rows) {
        const list = byEstablishment.get(u.establishment_id) ?? [];
        list.push(u);
        byEstablishment.set(u.establishment_id, list);
      }
      return establishmentIds.map((id) => byEstablishment.get(id) ?? []);
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
