import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../src/identity/user.entity.js';

export interface OrganizationRef {
  id: string;
  str_name: string;
  str_role: string;
}

/** One loader per request and relation: a relation costs one statement per request, not per row. */
export function createLoaders(em: EntityManager) {
  return {
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
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
