import type { Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { User } from './user.entity.js';

/** Users as reads see them: never the password hash. */
export const userSource: Source = {
  table: '"user"',
  alias: 'u',
  columnNames: ['id', 'str_name', 'str_email', 'str_document', 'str_type', 'bl_admin', 'bl_verified', 'str_phone', 'county_id', 'organization_id', 'ts_terms_accepted_at', 'ts_registration_confirmed_at', 'ts_created_at', 'ts_updated_at'],
  relations: {
    organizations: {
      loader: 'organizationsOfUser',
      list: (parent) =>
        `(select coalesce(jsonb_agg(jsonb_build_object('id', o.id, 'str_name', o.str_name, 'str_role', m.str_role) order by o.str_name, o.id), '[]') from membership m join organization o on o.id = m.organization_id where m.user_id = ${parent}.id)`,
    },
  },
};

export interface UserOrganizationRow {
  user_id: string;
  id: string;
  str_name: string;
  str_role: string;
}

/** The organizations of each user with its role there, for a loader's batch (the caller already sees the users). */
export function organizationsOfUsers(db: Db, userIds: readonly string[]): Promise<UserOrganizationRow[]> {
  return db.rows<UserOrganizationRow>({
    sql: `select m.user_id, o.id, o.str_name, m.str_role from membership m join organization o on o.id = m.organization_id where m.user_id = any(?) order by o.str_name, o.id`,
    params: [userIds],
  });
}

export type UserRow = Omit<User, 'password_hash'>;
