import { expectStatus, type TestApp } from './app.js';

export interface Access {
  establishment_id?: string;
  control_unit_id?: string;
  str_scope: string;
}

/** What the tests read of a Sharing record. */
export interface SharingRecord {
  id: string;
  str_status: string;
  accesses: Record<string, unknown>[];
  [field: string]: unknown;
}

/** A sharing made over HTTP by an owner or manager of the organization; its record. */
export async function share(app: TestApp, token: string, body: Record<string, unknown>): Promise<SharingRecord> {
  const res = await app.call('POST', '/api/sharings', { token, body: { str_name: 'Compradores', ...body } });
  expectStatus(res, 201);
  return res.body.data;
}

/** The keys of interface.md's Sharing record, in the order the REST fragment selects them. */
export const SHARING_KEYS = ['id', 'bl_deactivated_manually', 'str_status', 'str_name', 'str_description', 'users', 'organizations', 'accesses', 'ts_scheduled_to', 'ts_expires_at', 'ts_created_at', 'ts_updated_at'];
