import type { Db } from '../db/sql.js';

export interface FeatureSettingRow {
  user_id: string | null;
  organization_id: string | null;
  lst_enabled: string[];
  lst_disabled: string[];
  ts_created_at: Date;
  ts_updated_at: Date;
}

export interface FeatureLevelsRow {
  user_enabled: string[] | null;
  user_disabled: string[] | null;
  org_enabled: string[] | null;
  org_disabled: string[] | null;
}

/** The caller's own setting and its active organization's, in one statement (nulls where none is set). */
export async function featureLevels(db: Db, userId: string, organizationId: string | null): Promise<FeatureLevelsRow> {
  const [row] = await db.rows<FeatureLevelsRow>({
    sql: `select uf.lst_enabled as user_enabled, uf.lst_disabled as user_disabled, ofe.lst_enabled as org_enabled, ofe.lst_disabled as org_disabled
            from (select 1) one
            left join user_feature uf on uf.user_id = ?::uuid
            left join organization_feature ofe on ofe.organization_id = ?::uuid`,
    params: [userId, organizationId],
  });
  return row!;
}
