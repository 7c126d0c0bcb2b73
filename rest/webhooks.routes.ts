import type { Route } from './route.js';

const id = { id: { variable: 'id', uuid: true } };
const base = { auth: true as const, tag: 'Webhook', errors: [400, 404, 422] };
const PATH = '/api/webhooks';

/** Webhook endpoints (issue 24, docs/decisions/events-out.md): the caller's own, a secret shown once, a delivery log, a replay. */
export const webhookRoutes: Route[] = [
  { ...base, method: 'GET', path: PATH, operation: 'WebhookIndex', status: 200, page: 'page', pick: 'webhooks', paged: true, summary: "The caller's webhook endpoints" },
  {
    ...base,
    method: 'POST',
    path: PATH,
    operation: 'WebhookCreate',
    status: 201,
    body: 'input',
    pick: 'createWebhook',
    summary: 'Create an endpoint {str_url, str_event_types?, str_record_types?, record_ids?}: the answer shows its signing secret, once',
  },
  { ...base, method: 'GET', path: `${PATH}/:id`, operation: 'WebhookRead', status: 200, params: id, pick: 'webhook', summary: 'One endpoint (never its secret)' },
  { ...base, method: 'PATCH', path: `${PATH}/:id`, operation: 'WebhookUpdate', status: 200, params: id, body: 'input', pick: 'updateWebhook', summary: 'Change an endpoint (bl_active false pauses it)' },
  { ...base, method: 'DELETE', path: `${PATH}/:id`, operation: 'WebhookDelete', status: 204, params: id, pick: 'deleteWebhook', summary: 'Remove an endpoint: its pending deliveries are dropped' },
  {
    ...base,
    method: 'POST',
    path: `${PATH}/:id/replay`,
    operation: 'WebhookReplay',
    status: 200,
    params: id,
    body: 'input',
    pick: 'replayWebhook',
    summary: 'Send again every delivery of events that happened at or after {ts_from} (same webhook-id)',
  },
  {
    ...base,
    method: 'GET',
    path: `${PATH}/:id/deliveries`,
    operation: 'WebhookDeliveries',
    status: 200,
    params: id,
    page: 'page',
    paged: true,
    pick: 'webhookDeliveries',
    queryParameters: { names: ['str_status'], toVariables: (q) => (typeof q.str_status === 'string' ? { str_status: q.str_status } : {}) },
    summary: "The endpoint's delivery log, newest event first (str_status: PENDING, DELIVERED or FAILED)",
  },
];
