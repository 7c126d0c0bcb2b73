import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from './ids.js';
import { bodyHash } from './replay.js';

/**
 * CONTRACT.md, offline-first writes: a create retried with the same client `id` and body gets "the
 * stored response back, status and all" — what the first create answered, not the record as it is
 * now. Kept per caller, path and record id: REST keeps every create answered 201 (src/server.ts),
 * GraphQL every create mutation answered without errors (graphql/create-replay.ts, path
 * `graphql:<field>`, body the document's hash, operation name and variables). A body that differs
 * is left to the service, which answers CONFLICT on `id`. One statement to look up, one to store.
 */
export interface CreateRequest {
  caller: string;
  path: string;
  body: unknown;
}

export interface StoredCreate {
  status: number;
  body: unknown;
}

/** The client id of a create body, canonical; null when the body names none. */
export function clientIdOf(body: unknown): string | null {
  const id = body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : null;
  return isUuid(id) ? id.toLowerCase() : null;
}

const hashOf = (body: unknown, id: string) => bodyHash({ ...(body as Record<string, unknown>), id });

/** The first answer to this create, when this is a replay of it (same caller, path, id and body). */
export async function storedCreate(em: EntityManager, req: CreateRequest, id: string): Promise<StoredCreate | null> {
  const [row] = await em.execute<{ str_body_hash: string; num_status: number; str_response: string }[]>(
    'select str_body_hash, num_status, str_response from create_response where str_caller = ? and str_path = ? and record_id = ?',
    [req.caller, req.path, id],
  );
  if (!row || row.str_body_hash !== hashOf(req.body, id)) return null;
  return { status: Number(row.num_status), body: JSON.parse(row.str_response) };
}

/** Keeps the first answer to this create (the door decides which answers are kept: the created record's). */
export async function storeCreate(em: EntityManager, req: CreateRequest, id: string, answer: StoredCreate): Promise<void> {
  await em.execute(
    `insert into create_response (str_caller, str_path, record_id, str_body_hash, num_status, str_response) values (?, ?, ?, ?, ?, ?)
     on conflict (str_caller, str_path, record_id) do nothing`,
    [req.caller, req.path, id, hashOf(req.body, id), answer.status, JSON.stringify(answer.body)],
  );
}
