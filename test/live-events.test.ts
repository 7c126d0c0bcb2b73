import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import WebSocket from 'ws';
import { appendEvent } from '../src/shared/events.js';
import { mustPost, useApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { animalBody, identify } from './helpers/identify.js';
import { member } from './helpers/factories.js';
import { egressRead, holding, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockTags } from './helpers/tags.js';
import { share } from './helpers/sharing.js';

/**
 * Issue 24: GraphQL subscriptions from the committed log, through a real server and the protocols'
 * own clients (graphql-ws over a WebSocket, graphql-sse over server-sent events). Runs on
 * PostgreSQL and on PGlite (the hub needs no EVENTS_OUT).
 */

const app = useApp({ EVENTS_OUT_POLL_MS: '20', GRAPHQL_MAX_ALIASES: '10' });
const county = useCounty(app);
// Each test counts its own subscribers: the previous test's are gone first.
beforeEach(() => until('no subscribers left', () => app.service.live.size === 0));

interface LiveEvent {
  id: string;
  str_type: string;
  str_record_type: string;
  record_id: string;
  payload: { refs?: Record<string, unknown>; changes?: Record<string, unknown> } & Record<string, unknown>;
}

const FIELDS = 'id str_type str_record_type record_id payload';
const wsUrl = () => `${app.url.replace(/^http/, 'ws')}/graphql`;

function wsClient(token: string): WsClient & { closed: Promise<{ code: number; reason: string }> } {
  let closed!: (e: { code: number; reason: string }) => void;
  const client = createWsClient({
    url: wsUrl(),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (e) => closed({ code: (e as { code: number }).code, reason: String((e as { reason: unknown }).reason) }) },
  });
  return Object.assign(client, { closed: new Promise<{ code: number; reason: string }>((r) => (closed = r)) });
}

/** A subscription's events and errors as they come, and its end. */
function follow(client: { subscribe: WsClient['subscribe'] }, query: string, variables: Record<string, unknown> = {}) {
  const events: LiveEvent[] = [];
  const errors: unknown[] = [];
  let done!: () => void;
  const ended = new Promise<void>((r) => (done = r));
  const stop = client.subscribe<Record<string, LiveEvent>>(
    { query, variables },
    {
      next: (r) => {
        if (r.errors) errors.push(...r.errors);
        if (r.data) events.push(...Object.values(r.data));
      },
      error: (e) => (errors.push(e), done()),
      complete: () => done(),
    },
  );
  return { events, errors, ended, stop };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The hub holds `n` subscribers and reads the log: what commits from now on reaches them. */
const subscribed = (n: number) => until(`${n} subscribers`, () => app.service.live.size >= n && app.service.live.reading);

async function egressOf(h: Holding, to: Holding): Promise<{ id: string; codes: string[] }> {
  const { codes } = await stockTags(app, h.unit.unitId, 3);
  const done = await identify(app, h.owner.access, h.unit, codes.map((c) => animalBody(c)));
  const animals = await rows<{ str_code: string }>(app, 'select t.str_code from animal a join tag t on t.id = a.current_tag_id where a.tags_identification_id = ? order by t.str_code', [done.id]);
  const egress = (await mustPost(app, '/api/animals-egress', h.owner.access, { from_control_unit_id: h.unit.unitId, to_control_unit_id: to.unit.unitId, str_license_plate: 'abc1d23', tags: [egressRead(animals[0]!.str_code)] })).body.data;
  return { id: egress.id, codes: animals.map((a) => a.str_code) };
}

/** An event on the holding's establishment, committed. */
const mark = (h: Holding, type: string) => app.service.orm.em.fork().transactional((tx) => appendEvent(tx, { type, recordType: 'Establishment', recordId: h.unit.establishmentId, actorId: h.owner.user.id, payload: {} }));

describe('GraphQL subscriptions over graphql-ws', () => {
  it("sends a read batch of the subscriber's egress, and nothing of it to another tenant (who cannot even subscribe to it)", async () => {
    const farm = await holding(app, county);
    const feedlot = await holding(app, county, 'FEEDLOT');
    const stranger = await holding(app, county);
    const egress = await egressOf(farm, feedlot);
    const owner = wsClient(farm.owner.access);
    const other = wsClient(stranger.owner.access);
    try {
      const screen = follow(owner, `subscription ($id: UUID!) { animalsEgressEvents(id: $id) { ${FIELDS} } }`, { id: egress.id });
      const everything = follow(other, `subscription { recordEvents { ${FIELDS} } }`);
      const refused = follow(other, `subscription ($id: UUID!) { animalsEgressEvents(id: $id) { ${FIELDS} } }`, { id: egress.id });
      await refused.ended;
      expect(refused.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
      await subscribed(2);

      const batch = await app.call('POST', `/api/animals-egress/${egress.id}/tags`, { token: farm.owner.access, body: { tags: [egressRead(egress.codes[1]!), egressRead(egress.codes[2]!)] } });
      expect(batch.status).toBe(200);
      await until('the read batch', () => screen.events.some((e) => e.str_type === 'ANIMALS_EGRESS_READ'));
      const read = screen.events.find((e) => e.str_type === 'ANIMALS_EGRESS_READ')!;
      expect(read).toMatchObject({ str_record_type: 'AnimalsEgress', record_id: egress.id, payload: { refs: { int_reads: 2, int_new: 2 }, changes: { int_tag_count: 3 } } });
      const [logged] = await rows<{ id: string }>(app, `select id from event where str_record_type = 'AnimalsEgress' and record_id = ? and str_type = 'ANIMALS_EGRESS_READ' order by seq desc limit 1`, [egress.id]);
      expect(read.id).toBe(logged!.id);

      // The stranger's own establishment's event reaches it (its subscription works) ...
      await mark(stranger, 'STRANGER_MARK');
      await until("the stranger's own event", () => everything.events.some((e) => e.str_type === 'STRANGER_MARK'));
      // ... and nothing of the farm's, which was committed before it.
      expect(everything.events.filter((e) => e.record_id === egress.id || e.record_id === farm.unit.establishmentId)).toEqual([]);
      expect(screen.errors).toEqual([]);
      screen.stop();
      everything.stop();
    } finally {
      await owner.dispose();
      await other.dispose();
    }
  });

  it('sends nothing for a rolled-back write', async () => {
    const farm = await holding(app, county);
    const client = wsClient(farm.owner.access);
    try {
      const sub = follow(client, `subscription ($ids: [UUID!]) { recordEvents(record_ids: $ids) { ${FIELDS} } }`, { ids: [farm.unit.establishmentId] });
      await subscribed(1);
      await app.service.orm.em
        .fork()
        .transactional(async (tx) => {
          await appendEvent(tx, { type: 'ROLLED_BACK_MARK', recordType: 'Establishment', recordId: farm.unit.establishmentId, actorId: farm.owner.user.id, payload: {} });
          throw new Error('rolled back');
        })
        .catch((e: Error) => expect(e.message).toBe('rolled back'));
      await mark(farm, 'COMMITTED_MARK');
      await until('the committed event', () => sub.events.some((e) => e.str_type === 'COMMITTED_MARK'));
      expect(sub.events.map((e) => e.str_type)).toEqual(['COMMITTED_MARK']);
      sub.stop();
    } finally {
      await client.dispose();
    }
  });

  it('judges each event by the subscriber as it is now: a member removed from the organization receives nothing more', async () => {
    const farm = await holding(app, county);
    const manager = await member(app, 'MANAGER', farm.owner.org);
    const owner = wsClient(farm.owner.access);
    const leaving = wsClient(manager.access);
    try {
      const query = `subscription ($ids: [UUID!]) { recordEvents(record_ids: $ids) { ${FIELDS} } }`;
      const kept = follow(owner, query, { ids: [farm.unit.establishmentId] });
      const dropped = follow(leaving, query, { ids: [farm.unit.establishmentId] });
      await subscribed(2);
      await mark(farm, 'BEFORE_LEAVING');
      await until('both got the first event', () => kept.events.length === 1 && dropped.events.length === 1);
      await app.service.orm.em.fork().execute('delete from membership where user_id = ? and organization_id = ?', [manager.user.id, farm.owner.org.id]);
      await mark(farm, 'AFTER_LEAVING');
      await until("the owner's second event", () => kept.events.length === 2);
      expect(kept.events.map((e) => e.str_type)).toEqual(['BEFORE_LEAVING', 'AFTER_LEAVING']);
      expect(dropped.events.map((e) => e.str_type)).toEqual(['BEFORE_LEAVING']);
    } finally {
      await owner.dispose();
      await leaving.dispose();
    }
  });

  it('closes the connection of a revoked session (logout), and refuses a connection without a valid token', async () => {
    const farm = await holding(app, county);
    const client = wsClient(farm.owner.access);
    const sub = follow(client, `subscription { recordEvents { ${FIELDS} } }`);
    await subscribed(1);
    expect((await app.call('POST', '/api/logout', { token: farm.owner.access })).status).toBe(204);
    const closed = await client.closed;
    expect(closed).toEqual({ code: 4403, reason: 'session revoked' });
    await sub.ended;
    await client.dispose();

    const anonymous = wsClient('not-a-token');
    follow(anonymous, `subscription { recordEvents { ${FIELDS} } }`);
    expect((await anonymous.closed).code).toBe(4403);
    await anonymous.dispose();
  });

  it('reads on a connection judge grants as they are now: a sharing made after it opened shows on its next query', async () => {
    const farm = await holding(app, county);
    const buyer = await member(app);
    const client = wsClient(buyer.access);
    const ask = async () => {
      const q = follow(client, `{ establishment(id: "${farm.unit.establishmentId}") { id } }`);
      await q.ended;
      return q.events as unknown as ({ id: string } | null)[];
    };
    expect((await ask()).filter(Boolean)).toEqual([]);
    await share(app, farm.owner.access, { lst_user_ids: [buyer.user.id], accesses: [{ establishment_id: farm.unit.establishmentId, str_scope: 'ANIMALS' }] });
    expect(await ask()).toEqual([{ id: farm.unit.establishmentId }]);
    await client.dispose();
  });

  it('holds a subscription document to the same limits as a query (graphql-armor)', async () => {
    const farm = await holding(app, county);
    const client = wsClient(farm.owner.access);
    try {
      const aliases = Array.from({ length: 12 }, (_, i) => `a${i}: id`).join(' ');
      const sub = follow(client, `subscription { recordEvents { ${aliases} } }`);
      await sub.ended;
      expect(JSON.stringify(sub.errors)).toMatch(/alias/i);
      expect(app.service.live.size).toBe(0);
    } finally {
      await client.dispose();
    }
  });
});

describe('a subscription posted to /graphql', () => {
  it('is refused, naming the two doors that serve subscriptions', async () => {
    const farm = await holding(app, county);
    const res = await app.call('POST', '/graphql', { token: farm.owner.access, body: { query: 'subscription { recordEvents { id } }' } });
    expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/graphql-ws/), extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) })]);
  });
});

describe('GraphQL subscriptions over graphql-sse', () => {
  it('sends a read batch of the caller\'s egress with the token in the Authorization header, and ends the stream when the session is revoked', async () => {
    const farm = await holding(app, county);
    const feedlot = await holding(app, county, 'FEEDLOT');
    const egress = await egressOf(farm, feedlot);
    const client = createSseClient({ url: `${app.url}/graphql/stream`, headers: { Authorization: `Bearer ${farm.owner.access}` }, retryAttempts: 0 });
    try {
      const screen = follow(client as unknown as WsClient, `subscription ($id: UUID!) { animalsEgressEvents(id: $id) { ${FIELDS} } }`, { id: egress.id });
      await subscribed(1);
      const batch = await app.call('POST', `/api/animals-egress/${egress.id}/tags`, { token: farm.owner.access, body: { tags: [egressRead(egress.codes[1]!)] } });
      expect(batch.status).toBe(200);
      await until('the read batch', () => screen.events.some((e) => e.str_type === 'ANIMALS_EGRESS_READ'));
      expect(screen.events.find((e) => e.str_type === 'ANIMALS_EGRESS_READ')).toMatchObject({ record_id: egress.id, payload: { refs: { int_reads: 1 } } });
      expect((await app.call('POST', '/api/logout', { token: farm.owner.access })).status).toBe(204);
      await screen.ended;
      await until('the subscription gone', () => app.service.live.size === 0);
    } finally {
      client.dispose();
    }
  });

  it('refuses a stream without a valid token (401)', async () => {
    const res = await fetch(`${app.url}/graphql/stream`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query: 'subscription { recordEvents { id } }' }) });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'UNAUTHENTICATED' });
  });
});
