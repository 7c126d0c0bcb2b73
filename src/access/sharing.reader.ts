import type { Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';

/** A grantee as a sharing names it: enough to recognise, nothing of its private data. */
export interface SharingGranteeRow {
  id: string;
  str_name: string;
}

/** What one access opens: an establishment (every unit) or one of its units, for a scope. */
export interface SharingAccessRow {
  establishment_id: string;
  str_establishment_name: string;
  control_unit_id: string | null;
  str_control_unit_code: string | null;
  str_scope: string;
}

const USERS = (sharing: string) => `from sharing_grantee sg join "user" gu on gu.id = sg.user_id where sg.sharing_id = ${sharing}`;
const ORGANIZATIONS = (sharing: string) => `from sharing_grantee sg join organization gorg on gorg.id = sg.organization_id where sg.sharing_id = ${sharing}`;
const ACCESSES = (sharing: string) =>
  `from sharing_access sa join establishment ae on ae.id = sa.establishment_id left join control_unit acu on acu.id = sa.control_unit_id where sa.sharing_id = ${sharing}`;
const ACCESS_FIELDS = `'establishment_id', sa.establishment_id, 'str_establishment_name', ae.str_name, 'control_unit_id', sa.control_unit_id, 'str_control_unit_code', acu.str_code, 'str_scope', sa.str_scope`;

/** A sharing with its grantees and accesses, each a short list aggregated in the sharing's statement when the query selects it. */
export const sharingSource: Source = {
  table: 'sharing',
  alias: 's',
  relations: {
    users: { loader: 'usersOfSharing', list: (p) => `(select coalesce(jsonb_agg(jsonb_build_object('id', gu.id, 'str_name', gu.str_name) order by gu.str_name, gu.id), '[]') ${USERS(`${p}.id`)})` },
    organizations: { loader: 'organizationsOfSharing', list: (p) => `(select coalesce(jsonb_agg(jsonb_build_object('id', gorg.id, 'str_name', gorg.str_name) order by gorg.str_name, gorg.id), '[]') ${ORGANIZATIONS(`${p}.id`)})` },
    accesses: { loader: 'accessesOfSharing', list: (p) => `(select coalesce(jsonb_agg(jsonb_build_object(${ACCESS_FIELDS}) order by sa.int_position), '[]') ${ACCESSES(`${p}.id`)})` },
  },
};

type OfSharing<R> = R & { sharing_id: string };

/** The granted users of each sharing (one the caller already sees), for a loader's batch: one statement. */
export function usersOfSharings(db: Db, ids: readonly string[]): Promise<OfSharing<SharingGranteeRow>[]> {
  return db.rows({ sql: `select sg.sharing_id, gu.id, gu.str_name ${USERS('any(?)')} order by gu.str_name, gu.id`, params: [ids] });
}

/** The granted organizations of each sharing, for a loader's batch: one statement. */
export function organizationsOfSharings(db: Db, ids: readonly string[]): Promise<OfSharing<SharingGranteeRow>[]> {
  return db.rows({ sql: `select sg.sharing_id, gorg.id, gorg.str_name ${ORGANIZATIONS('any(?)')} order by gorg.str_name, gorg.id`, params: [ids] });
}

/** The accesses of each sharing in the order they were given, for a loader's batch: one statement. */
export function accessesOfSharings(db: Db, ids: readonly string[]): Promise<OfSharing<SharingAccessRow>[]> {
  return db.rows({
    sql: `select sa.sharing_id, sa.establishment_id, ae.str_name as str_establishment_name, sa.control_unit_id, acu.str_code as str_control_unit_code, sa.str_scope ${ACCESSES('any(?)')} order by sa.int_position`,
    params: [ids],
  });
}
