import type { Db } from '../db/sql.js';

export interface PrivacyTermsRow {
  id: string;
  str_version: string;
  str_text: string;
  ts_published_at: Date;
  ts_created_at: Date;
  ts_updated_at: Date;
  /** The caller's acceptance: null without a token. */
  ts_terms_accepted_at: Date | null;
  bl_accepted: boolean | null;
}

/** The current terms (the latest published) with the caller's acceptance when there is a caller, in one statement. */
export async function currentTerms(db: Db, userId: string | null): Promise<PrivacyTermsRow | null> {
  const [row] = await db.rows<PrivacyTermsRow>({
    sql: `select p.id, p.str_version, p.str_text, p.ts_published_at, p.ts_created_at, p.ts_updated_at, u.ts_terms_accepted_at,
                 case when u.id is null then null else coalesce(u.ts_terms_accepted_at >= p.ts_published_at, false) end as bl_accepted
            from (select * from privacy_terms order by ts_published_at desc, id desc limit 1) p
            left join "user" u on u.id = ?::uuid`,
    params: [userId],
  });
  return row ?? null;
}

/**
 * SQL for the authenticate statement (alias "u" the user): whether the user still has to accept
 * the current terms. No terms published: nothing to accept.
 */
export const TERMS_PENDING_SQL = `coalesce((select u.ts_terms_accepted_at is null or u.ts_terms_accepted_at < p.ts_published_at
                                              from privacy_terms p order by p.ts_published_at desc, p.id desc limit 1), false)`;
