import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from './errors.js';
import { counted, toPositional } from '../db/sql.js';
import { bodyHash } from './replay.js';

/**
 * `Idempotency-Key` on REST POSTs (CONTRACT.md "Offline-first writes"). A key belongs to one caller
 * (user id, or client address when unauthenticated); the first request claims it, runs, and stores
 * its status and JSON body unless the status says "try again" (5xx, 429). A repeat with the same
 * method, path and body gets the stored response back without running; any other use of the key is
 * a 422 CONFLICT. Keys live 24 h.
 *
 * On PostgreSQL the claim is a row inserted in a transaction of its own connection, held open while
 * the request runs and committed with the response: a repeat meanwhile waits on that row's lock and
 * then replays, and a request whose process dies (kill -9) takes its uncommitted claim with it, so a
 * retry runs at once. On PGlite (one process, one session) the claim is a committed pending row
 * with a lease; the process that owns the database clears pending claims when it starts.
 *
 * Statements per keyed POST, whatever the route, besides the route's own: on PGlite 2 (claim, then
 * store or release; a replay: claim and one read); on PostgreSQL 4 (begin, claim, store, commit; a
 * replay: begin, claim, rollback and one read).
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEY = /^[\x20-\x7e]{1,255}$/;
const TTL = `interval '24 hours'`;
/**
 * A claim whose request has not answered within this long is taken to be dead (its process
 * crashed): a retry may claim the key again and run. Longer than any request runs.
 */
const LEASE = `interval '2 minutes'`;

export interface IdempotentRequest {
  caller: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

export interface StoredResponse {
  status: number;
  /** The JSON body, or null for none. */
  body: unknown;
}

export function callerOf(userId: string | null | undefined, address: string): string {
  return userId ? `user:${userId}` : `address:${address}`;
}

/** 1..255 printable ASCII characters; anything else is a 400 naming the header. */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new DomainError('BAD_REQUEST', `${IDEMPOTENCY_HEADER} must be 1 to 255 printable characters`);
  return key;
}

/** Whether a response is kept for replay: a 5xx or 429 is not, so a retry runs again. */
export const isStorable = (status: number): boolean => status < 500 && status !== 429;

/**
 * Answers that carry tokens (login, refresh, change-org, reset-profile) are never stored: a stored
 * token pair would be a credential at rest. Their key is released, and a retry runs again (a second
 * login is a second session; a refresh retried within its grace window gets the same pair).
 */
function carriesCredentials(body: unknown): boolean {
  const data = (body as { data?: unknown } | null)?.data;
  return !!data && typeof data === 'object' && Object.keys(data).some((k) => /token/i.test(k));
}

const conflict = (message: string) => new DomainError('CONFLICT', { fields: { [IDEMPOTENCY_HEADER]: [message] } });

interface Row {
  str_method: string;
  str_path: string;
  str_body_hash: string;
  num_status: number | null;
  str_response: string | null;
}

/**
 * Runs `run` once per caller and key. `run` answers the request and returns its response; when it
 * throws, the claim is released and the error goes on. Returns the response and whether it is a replay.
 */
/** The claim: insert, or overwrite an expired row (or, on PGlite, a pending one past its lease). */
const CLAIM = `insert into idempotency_key (str_caller, str_key, str_method, str_path, str_body_hash) values (?, ?, ?, ?, ?)
     on conflict (str_caller, str_key) do update
       set str_method = excluded.str_method, str_path = excluded.str_path, str_body_hash = excluded.str_body_hash,
           num_status = null, str_response = null, ts_created_at = now()
       where idempotency_key.ts_created_at < now() - ${TTL}
          or (idempotency_key.num_status is null and idempotency_key.ts_created_at < now() - ${LEASE})
     returning true as claimed`;
const STORE = 'update idempotency_key set num_status = ?, str_response = ? where str_caller = ? and str_key = ? and num_status is null';
const RELEASE = 'delete from idempotency_key where str_caller = ? and str_key = ? and num_status is null';

/** One connection of its own for a claim's transaction (PostgreSQL). */
export interface ClaimConnection {
  query(sql: string, params?: unknown[]): Promise<{ rowCount: number | null }>;
  release(): void;
}
export type ConnectClaim = () => Promise<ClaimConnection>;

/** PGlite: no request of a previous process can still be running, so its pending claims are free. */
export async function releaseDeadClaims(em: EntityManager): Promise<void> {
  await em.execute('delete from idempotency_key where num_status is null');
}

const storeParams = (req: IdempotentRequest, response: StoredResponse) => [response.status, response.body == null ? null : JSON.stringify(response.body), req.caller, req.key];
const keep = (response: StoredResponse | null): response is StoredResponse => !!response && isStorable(response.status) && !carriesCredentials(response.body);

/**
 * Runs `run` once per caller and key. `run` answers the request and returns its response; when it
 * throws, the claim is released and the error goes on. Returns the response and whether it is a replay.
 * `connect` (PostgreSQL): the claim is held in a transaction of its own connection (see above).
 */
export async function idempotent(em: EntityManager, req: IdempotentRequest, run: () => Promise<StoredResponse>, connect?: ConnectClaim): Promise<{ response: StoredResponse; replayed: boolean }> {
  const hash = bodyHash(req.body);
  const claim = [req.caller, req.key, req.method, req.path, hash];
  if (connect) {
    const claimant = await connect();
    // Counted with the request's own statements (X-SQL-Statements), as the ORM's are.
    const client = { query: (sql: string, params?: unknown[]) => (counted(sql), claimant.query(sql, params)), release: () => claimant.release() };
    let open = false;
    try {
      await client.query('begin');
      open = true;
      // A concurrent claim of the same key waits here on the uncommitted row, then replays (or claims, if this one rolled back).
      if ((await client.query(toPositional(CLAIM), claim)).rowCount) {
        let response: StoredResponse | null = null;
        try {
          response = await run();
        } finally {
          if (keep(response)) await client.query(toPositional(STORE), storeParams(req, response));
          await client.query(keep(response) ? 'commit' : 'rollback');
          open = false;
        }
        return { response, replayed: false };
      }
    } finally {
      if (open) await client.query('rollback').catch(() => undefined);
      client.release();
    }
    return replay(em, req, hash);
  }
  // A concurrent claim of the same key waits on the row lock, then sees it taken: only one runs.
  const claimed = await em.execute<{ claimed: boolean }[]>(CLAIM, claim);
  if (claimed.length) {
    let response: StoredResponse | null = null;
    try {
      response = await run();
    } finally {
      if (keep(response)) await em.execute(STORE, storeParams(req, response));
      else await em.execute(RELEASE, [req.caller, req.key]);
    }
    return { response, replayed: false };
  }
  return replay(em, req, hash);
}

/** The key was taken: its stored response, or a CONFLICT. */
async function replay(em: EntityManager, req: IdempotentRequest, hash: string): Promise<{ response: StoredResponse; replayed: boolean }> {
  const [row] = await em.execute<Row[]>(
    `select str_method, str_path, str_body_hash, num_status, str_response from idempotency_key
     where str_caller = ? and str_key = ? and ts_created_at >= now() - ${TTL}`,
    [req.caller, req.key],
  );
  // No row: the first request failed and released its claim (or it expired) between our two statements.
  if (!row) throw conflict('a request with this key is still in progress; retry');
  if (row.str_method !== req.method || row.str_path !== req.path || row.str_body_hash !== hash) throw conflict('was used with another request');
  if (row.num_status === null) throw conflict('a request with this key is still in progress; retry');
  return { response: { status: Number(row.num_status), body: row.str_response === null ? null : JSON.parse(row.str_response) }, replayed: true };
}
