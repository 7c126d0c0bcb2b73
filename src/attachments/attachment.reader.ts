import type { Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import type { SearchSpec } from '../shared/search.js';
import { ATTACHED_RECORDS, aliasOf } from './attachment.policy.js';
import type { AttachmentRecordType } from './attachment.rules.js';

export const attachmentSource: Source = { table: 'attachment', alias: 'at', relations: {} };

export const ATTACHMENT_SEARCH: SearchSpec = {
  alias: 'at',
  exact: { id: 'uuid', str_record_type: 'text', record_id: 'uuid', str_content_type: 'text', int_size_bytes: 'integer', str_sha256: 'text', author_user_id: 'uuid' },
  ranges: ['ts_created_at', 'ts_updated_at'],
  query: ['str_file_name'],
};

/** Whether the caller sees the record (through the record's own policy): one statement. */
export async function recordVisible(db: Db, actor: Actor, type: AttachmentRecordType, id: string): Promise<boolean> {
  const r = ATTACHED_RECORDS[type];
  const scope = r.scope(actor);
  const rows = await db.rows<{ ok: number }>({ sql: `select 1 as ok from ${r.table} where ${aliasOf(r)}.id = ? and ${scope.sql}`, params: [id, ...scope.params] });
  return rows.length > 0;
}
