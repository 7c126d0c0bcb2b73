import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { PageInput, Paged } from '../shared/pagination.js';
import { Checker } from '../shared/validation.js';
import { WebhookEndpoint } from './webhook.entity.js';
import { pageDeliveries, pageWebhooks, readWebhook, type DeliveryRow, type WebhookRow } from './webhook.reader.js';
import { OUTGOING_TYPES } from './visibility.js';
import { refusedUrl } from './webhook.url.js';

export interface WebhookInput {
  str_url?: string | null;
  str_description?: string | null;
  str_event_types?: string[] | null;
  str_record_types?: string[] | null;
  record_ids?: string[] | null;
  bl_active?: boolean | null;
}

/** A new endpoint and its secret: the one answer that shows it. */
export interface CreatedWebhook {
  webhook: WebhookRow;
  str_secret: string;
}

const MAX_LIST = 500;
const EVENT_TYPE = /^[A-Z][A-Z0-9_]{0,99}$/;
const STATUSES = ['PENDING', 'DELIVERED', 'FAILED'];

/** The fields an input sets, checked; `create`: the URL is required. */
async function fieldsOf(input: WebhookInput, create: boolean, allowPrivate: boolean): Promise<Partial<WebhookEndpoint>> {
  const check = new Checker();
  if (create) check.required('str_url', input.str_url);
  const refused = input.str_url != null ? await refusedUrl(input.str_url, allowPrivate) : null;
  check.when(refused !== null, 'str_url', refused ?? '');
  check.when(input.str_description != null && input.str_description.length > 500, 'str_description', 'must be at most 500 characters');
  const lists = { str_event_types: input.str_event_types, str_record_types: input.str_record_types, record_ids: input.record_ids };
  for (const [field, list] of Object.entries(lists)) check.when(list != null && list.length > MAX_LIST, field, `must list at most ${MAX_LIST}`);
  check.when((input.str_event_types ?? []).some((t) => !EVENT_TYPE.test(t)), 'str_event_types', 'must be event types (upper case, digits and _)');
  const unknown = (input.str_record_types ?? []).filter((t) => !OUTGOING_TYPES.includes(t));
  check.when(unknown.length > 0, 'str_record_types', `must be among ${OUTGOING_TYPES.join(', ')}`);
  check.when((input.record_ids ?? []).some((id) => !isUuid(id)), 'record_ids', 'must be uuids');
  check.throwIfAny();
  const fields: Partial<WebhookEndpoint> = {};
  if (input.str_url != null) fields.str_url = input.str_url;
  if (input.str_description !== undefined) fields.str_description = input.str_description;
  if (input.str_event_types != null) fields.str_event_types = [...new Set(input.str_event_types)];
  if (input.str_record_types != null) fields.str_record_types = [...new Set(input.str_record_types)];
  if (input.record_ids != null) fields.record_ids = [...new Set(input.record_ids.map((id) => id.toLowerCase()))];
  if (input.bl_active != null) fields.bl_active = input.bl_active;
  return fields;
}

/** What the log says of a change: never the secret. */
const changesOf = (fields: Partial<WebhookEndpoint>) => Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'str_secret'));

/**
 * Webhook endpoints (issue 24): each is its owner's, receives what its owner may read (checked when
 * an event is relayed), and is signed with a secret shown once.
 */
export class WebhookService {
  /** WEBHOOK_ALLOW_PRIVATE: URLs on private, loopback and link-local addresses are accepted. */
  constructor(private readonly allowPrivate = false) {}

  read(db: Db, actor: Actor, id: string): Promise<WebhookRow> {
    return readWebhook(db, actor, id);
  }

  page(db: Db, actor: Actor, page: PageInput | null | undefined): Promise<Paged<WebhookRow>> {
    return pageWebhooks(db, actor, page);
  }

  deliveries(db: Db, actor: Actor, id: string, page: PageInput | null | undefined, status: string | null | undefined): Promise<Paged<DeliveryRow>> {
    if (status != null && !STATUSES.includes(status)) throw DomainError.field('str_status', `must be one of ${STATUSES.join(', ')}`);
    return pageDeliveries(db, actor, id, page, status ?? null);
  }

  async create(em: EntityManager, db: Db, actor: Actor, input: WebhookInput): Promise<CreatedWebhook> {
    const fields = await fieldsOf(input, true, this.allowPrivate);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const id = await em.transactional(async (tx) => {
      const endpoint = tx.create(WebhookEndpoint, { ...fields, str_url: fields.str_url!, user_id: actor.userId, organization_id: actor.organizationId, str_secret: secret });
      tx.persist(endpoint);
      await tx.flush();
      await appendEvent(tx, { type: 'WEBHOOK_CREATED', recordType: 'WebhookEndpoint', recordId: endpoint.id, actorId: actor.userId, payload: { changes: changesOf(fields) } });
      return endpoint.id;
    });
    return { webhook: await readWebhook(db, actor, id), str_secret: secret };
  }

  async update(em: EntityManager, db: Db, actor: Actor, id: string, input: WebhookInput): Promise<WebhookRow> {
    await readWebhook(db, actor, id);
    const fields = await fieldsOf(input, false, this.allowPrivate);
    await em.transactional(async (tx) => {
      const endpoint = await tx.findOneOrFail(WebhookEndpoint, { id: id.toLowerCase() }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      tx.assign(endpoint, fields);
      await tx.flush();
      await appendEvent(tx, { type: 'WEBHOOK_UPDATED', recordType: 'WebhookEndpoint', recordId: endpoint.id, actorId: actor.userId, payload: { changes: changesOf(fields) } });
    });
    return readWebhook(db, actor, id);
  }

  /** Its pending deliveries are dropped with it (nothing more is sent); its log stays. */
  async delete(em: EntityManager, db: Db, actor: Actor, id: string): Promise<void> {
    await readWebhook(db, actor, id);
    await em.transactional(async (tx) => {
      const endpoint = await tx.findOneOrFail(WebhookEndpoint, { id: id.toLowerCase() }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      endpoint.ts_deleted_at = new Date();
      endpoint.bl_active = false;
      await tx.flush();
      await tx.execute(`update webhook_delivery set str_status = 'FAILED', str_last_error = 'endpoint deleted' where endpoint_id = ? and str_status = 'PENDING'`, [endpoint.id]);
      await appendEvent(tx, { type: 'WEBHOOK_DELETED', recordType: 'WebhookEndpoint', recordId: endpoint.id, actorId: actor.userId, payload: {} });
    });
  }

  /**
   * Sends again, in log order, every delivery of the endpoint whose event happened at or after
   * `from` (the same webhook-id: a receiver that kept it drops the copy). Returns how many.
   */
  async replay(em: EntityManager, db: Db, actor: Actor, id: string, from: Date | null | undefined): Promise<number> {
    if (!(from instanceof Date) || Number.isNaN(from.getTime())) throw DomainError.field('ts_from', 'is required (an ISO 8601 time)');
    await readWebhook(db, actor, id);
    return em.transactional(async (tx) => {
      const rows = await tx.execute<{ id: string }[]>(
        `update webhook_delivery d set str_status = 'PENDING', int_attempts = 0, ts_next_attempt_at = now(), ts_lease_until = null, ts_created_at = now()
           from event e where e.seq = d.event_seq and d.endpoint_id = ? and e.ts_occurred_at >= ? and d.str_status <> 'PENDING' returning d.id`,
        [id.toLowerCase(), from],
      );
      await appendEvent(tx, { type: 'WEBHOOK_REPLAYED', recordType: 'WebhookEndpoint', recordId: id.toLowerCase(), actorId: actor.userId, payload: { refs: { ts_from: from.toISOString() }, changes: { int_deliveries: rows.length } } });
      return rows.length;
    });
  }
}
