import { randomUUID } from 'node:crypto';
import { SET_HOLDER_OF_UNIT } from '../src/places/unit-holder.js';
import { useApp } from './helpers/app.js';
import { official } from './helpers/factories.js';
import { holding, type Holding } from './helpers/movements.js';
import { makeCounty, useCounty } from './helpers/places.js';
import { csvOfPages, TRACE_CSV_HEADER, type TracedJson } from './helpers/trace-csv.js';

/**
 * A hand-drawn network (days from 2026-01-01):
 *   a1–a10 born at the FARM (0–10) → AUCTION (11–12) → a1–a5 FEEDLOT 1 (13–), a6–a10 FEEDLOT 2 (13–)
 *   c1–c10 at FEEDLOT 1 from 0; c1–c3 leave on day 20 for the SLAUGHTERHOUSE (21–)
 *   d1–d5 at FEEDLOT 2 from 0
 *   e1–e5 at the AUCTION 11.5–11.8 (the co-location with a1–a10), then the SLAUGHTERHOUSE (12–)
 * The farm → auction leg of a1 went under a GTA.
 */
let farm: Holding, auction: Holding, feedlot1: Holding, feedlot2: Holding, slaughterhouse: Holding;
const animals: Record<string, string> = {};
let gtaCode: string;

const BASE = Date.UTC(2026, 0, 1);
const day = (n: number) => new Date(BASE + n * 86_400_000).toISOString();
const names = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

const app = useApp();
const county = useCounty(app);
beforeAll(async () => {
  [farm, auction, feedlot1, feedlot2, slaughterhouse] = await Promise.all(['FARM', 'AUCTION', 'FEEDLOT', 'FEEDLOT', 'SLAUGHTERHOUSE'].map((t) => holding(app, county, t)));
  const stays: [string, Holding, number, number | null][] = [];
  for (const a of names('a', 1, 10)) stays.push([a, farm, 0, 10], [a, auction, 11, 12], [a, Number(a.slice(1)) <= 5 ? feedlot1 : feedlot2, 13, null]);
  for (const c of names('c', 1, 10)) {
    if (Number(c.slice(1)) <= 3) stays.push([c, feedlot1, 0, 20], [c, slaughterhouse, 21, null]);
    else stays.push([c, feedlot1, 0, null]);
  }
  for (const d of names('d', 1, 5)) stays.push([d, feedlot2, 0, null]);
  for (const e of names('e', 1, 5)) stays.push([e, auction, 11.5, 11.8], [e, slaughterhouse, 12, null]);
  const em = app.service.orm.em.fork();
  const last = new Map<string, Holding>();
  for (const [name, h] of stays) last.set(name, h);
  for (const [name, h] of last) {
    animals[name] = randomUUID();
    await em.execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) values (?, 'BOVINE', 'FEMALE', ?, ?)`, [animals[name], h.unit.unitId, day(0)]);
  }
  const gtaId = randomUUID();
  const egressId = randomUUID();
  gtaCode = String(Math.floor(Math.random() * 1e9));
  await em.execute(
    `insert into gta (id, organization_id, str_code, int_animal_quantity, str_federative_unit, str_purpose, from_control_unit_id, to_control_unit_id, from_establishment_id, to_establishment_id, ts_issued_at, ts_valid_until, str_status)
     values (?, ?, ?, 10, ?, 'AUCTION', ?, ?, ?, ?, ?, ?, 'RECEIVED')`,
    [gtaId, farm.owner.org.id, gtaCode, county.str_federative_unit, farm.unit.unitId, auction.unit.unitId, farm.unit.establishmentId, auction.unit.establishmentId, day(9), day(12)],
  );
  await em.execute(`insert into animals_egress (id, from_control_unit_id, to_control_unit_id, gta_id, str_status, bl_move_with_tag_reading, int_tag_count) values (?, ?, ?, ?, 'RECEIVED', true, 10)`, [egressId, farm.unit.unitId, auction.unit.unitId, gtaId]);
  for (const [name, h, from, to] of stays) {
    const leftUnderGta = name === 'a1' && h === farm ? egressId : null;
    await em.execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_egress_id) values (?, ?, ?, ?, ?, ?)', [animals[name], h.unit.unitId, h.unit.establishmentId, day(from), to === null ? null : day(to), leftUnderGta]);
  }
});

interface Traced {
  animal_id: string;
  str_reached_by: string;
  int_hops: number;
  via_animal_id: string | null;
  ts_via: string | null;
  stays: { str_control_unit_code: string; ts_from: string; ts_to: string | null; str_gta_code: string | null }[];
}

interface TracedPlace {
  id: string;
  str_socioenvironmental_status: string;
  ts_exposure: string;
  int_hops: number;
  animal_id: string | null;
  control_unit_id: string | null;
  str_gta_code: string | null;
  int_traced_animals: number;
}

const nameOf = (id: string) => Object.entries(animals).find(([, v]) => v === id)![0];
const sorted = (list: string[]) => [...list].sort((x, y) => x.localeCompare(y, 'en', { numeric: true }));

async function trace(token: string, input: Record<string, unknown>, size = 100): Promise<{ status: number; animals: Traced[]; establishments: TracedPlace[]; body: any }> {
  const all: Traced[] = [];
  for (let page = 1; ; page++) {
    const res = await app.call('POST', `/api/trace?int_current_page=${page}&int_max_results=${size}`, { token, body: input });
    // A walk in memory writes its answer after the page is sent: read the database once it is written.
    await app.service.core.trace.settled();
    if (res.status !== 200) return { status: res.status, animals: [], establishments: [], body: res.body };
    all.push(...res.body.data);
    // Every page carries the whole contact chain and the exact totals.
    expect(res.body.int_total_establishments).toBe(res.body.establishments.length);
    if (page >= res.body.meta.int_total_pages) {
      expect(all).toHaveLength(res.body.meta.int_total_results);
      return { status: 200, animals: all, establishments: res.body.establishments, body: res.body };
    }
  }
}

/** `n` more animals in `pen` from day 0, each with its open stay there (written straight to the tables, as the event log does not see). */
async function stockPen(pen: Holding, n: number): Promise<void> {
  const em = app.service.orm.em.fork();
  await em.execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) select gen_random_uuid(), 'BOVINE', 'MALE', ?, ? from generate_series(1, ${n})`, [pen.unit.unitId, day(0)]);
  await em.execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) select a.id, ?, ?, ? from animal a where a.last_control_unit_id = ? and not exists (select 1 from animal_stay s where s.animal_id = a.id)', [
    pen.unit.unitId,
    pen.unit.establishmentId,
    day(0),
    pen.unit.unitId,
  ]);
}

describe('POST /api/trace over the hand-drawn network', () => {
  let authority: Awaited<ReturnType<typeof official>>;
  beforeAll(async () => {
    authority = await official(app, county.id);
  });
  const found = (r: { animals: Traced[] }) => sorted(r.animals.map((a) => nameOf(a.animal_id)));

  test('forward from the farm, unlimited hops: every animal; how each was reached', async () => {
    const r = await trace(authority.access, { establishment_id: farm.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' }, 7);
    expect(r.status).toBe(200);
    expect(found(r)).toEqual(sorted([...names('a', 1, 10), ...names('c', 1, 10), ...names('d', 1, 5), ...names('e', 1, 5)]));
    const by = Object.fromEntries(r.animals.map((a) => [nameOf(a.animal_id), a]));
    expect(by.a3).toMatchObject({ str_reached_by: 'SEED', int_hops: 0, via_animal_id: null });
    expect(by.e2).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, ts_via: day(11.5) });
    expect(names('a', 1, 10)).toContain(nameOf(by.e2!.via_animal_id!));
    expect(by.c7).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 2, ts_via: day(13) });
    expect(names('a', 1, 5)).toContain(nameOf(by.c7!.via_animal_id!));
    expect(by.d1).toMatchObject({ int_hops: 2, ts_via: day(13) });
    // Paths are whole, in order, with the GTA of the leg.
    expect(by.a1!.stays.map((s) => [s.str_control_unit_code, s.ts_from, s.ts_to, s.str_gta_code])).toEqual([
      [farm.unit.code, day(0), day(10), gtaCode],
      [auction.unit.code, day(11), day(12), null],
      [feedlot1.unit.code, day(13), null, null],
    ]);
    expect(r.establishments.map((e) => e.id).sort()).toEqual([farm, auction, feedlot1, feedlot2, slaughterhouse].map((h) => h.unit.establishmentId).sort());
  });

  test('a hop limit of 1 stops at the auction; a window that ends on day 12.5 cuts the feedlots out', async () => {
    const hops = await trace(authority.access, { establishment_id: farm.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD', int_max_hops: 1 });
    expect(found(hops)).toEqual(sorted([...names('a', 1, 10), ...names('e', 1, 5)]));
    const cut = await trace(authority.access, { establishment_id: farm.unit.establishmentId, ts_from: day(0), ts_to: day(12.5), str_direction: 'FORWARD' });
    expect(found(cut)).toEqual(sorted([...names('a', 1, 10), ...names('e', 1, 5)]));
  });

  test('backward from the slaughterhouse: days 20–30 reach feedlot 1 through c1–c3 leaving on day 20; days 25–30 do not', async () => {
    const wide = await trace(authority.access, { control_unit_id: slaughterhouse.unit.unitId, ts_from: day(20), ts_to: day(30), str_direction: 'BACKWARD' });
    expect(found(wide)).toEqual(sorted([...names('e', 1, 5), ...names('c', 1, 10), ...names('a', 1, 5)]));
    const a2 = wide.animals.find((a) => nameOf(a.animal_id) === 'a2')!;
    expect(a2).toMatchObject({ str_reached_by: 'CONTACT', ts_via: day(20) });
    const narrow = await trace(authority.access, { control_unit_id: slaughterhouse.unit.unitId, ts_from: day(25), ts_to: day(30), str_direction: 'BACKWARD' });
    expect(found(narrow)).toEqual(sorted([...names('e', 1, 5), ...names('c', 1, 3)]));
  });

  test('forward from one animal; BOTH is the union of the two directions', async () => {
    const fromC4 = await trace(authority.access, { animal_id: animals.c4, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' });
    expect(found(fromC4)).toEqual(sorted([...names('c', 1, 10), ...names('a', 1, 5), ...names('e', 1, 5)]));
    const input = { establishment_id: auction.unit.establishmentId, ts_from: day(11), ts_to: day(12) };
    const [forward, backward, both] = await Promise.all(['FORWARD', 'BACKWARD', 'BOTH'].map((d) => trace(authority.access, { ...input, str_direction: d })));
    expect(found(both)).toEqual(sorted([...new Set([...found(forward), ...found(backward)])]));
  });

  test("an owner sees only its own part; an authority of another state sees nothing; bad questions are 422 naming the field", async () => {
    const own = await trace(feedlot1.owner.access, { control_unit_id: feedlot1.unit.unitId, ts_from: day(0), ts_to: day(30), str_direction: 'BACKWARD' });
    expect(found(own)).toEqual(sorted([...names('c', 1, 10), ...names('a', 1, 5)]));
    const a1 = own.animals.find((a) => nameOf(a.animal_id) === 'a1')!;
    expect(a1.stays.map((s) => s.str_control_unit_code)).toEqual([feedlot1.unit.code]);
    expect(own.establishments.map((e) => e.id)).toEqual([feedlot1.unit.establishmentId]);

    let elsewhere = await makeCounty(app);
    while (elsewhere.str_federative_unit === county.str_federative_unit) elsewhere = await makeCounty(app);
    const stranger = await official(app, elsewhere.id);
    const refused = await trace(stranger.access, { establishment_id: farm.unit.establishmentId, ts_from: day(0), ts_to: day(30) });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.detail.fields)).toEqual(['establishment_id']);

    const bad = await app.call('POST', '/api/trace', { token: authority.access, body: { establishment_id: farm.unit.establishmentId, animal_id: animals.a1, ts_from: day(5), ts_to: day(1), str_direction: 'SIDEWAYS', int_max_hops: -1 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.detail.fields).sort()).toEqual(['animal_id', 'int_max_hops', 'str_direction', 'ts_to']);
    const operator = await app.call('POST', '/api/trace', { token: (await official(app, county.id, 'PRODUCER')).access, body: { animal_id: animals.a1, ts_from: day(0), ts_to: day(1) } });
    expect(operator.status).toBe(403);
  });

  test.each([
    ['an authority', () => authority.access, () => ({ establishment_id: farm.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' })],
    ['an owner', () => feedlot1.owner.access, () => ({ control_unit_id: feedlot1.unit.unitId, ts_from: day(0), ts_to: day(30), str_direction: 'BOTH' })],
  ])('Accept: text/csv answers the whole trace for %s, one row per stay, the same values as the JSON pages', async (_who, token, question) => {
    const input = question();
    const json = await trace(token(), input, 4);
    expect(json.animals.length).toBeGreaterThan(3);
    const res = await fetch(`${app.url}/api/trace`, { method: 'POST', headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify(input) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await res.text();
    expect(text.endsWith('\r\n')).toBe(true);
    const lines = text.slice(0, -2).split('\r\n');
    expect(lines[0]).toBe(TRACE_CSV_HEADER);
    expect(lines.slice(1)).toEqual(csvOfPages(json.animals as unknown as TracedJson[]));
  });
});

describe('POST /api/trace answers of more than one CSV page', () => {
  test('a pen of 5,001 animals: the CSV streams every page from one walk, stored once for the request', async () => {
    const authority = await official(app, county.id);
    const pen = await holding(app, county, 'FEEDLOT');
    const em = app.service.orm.em.fork();
    await stockPen(pen, 5001);
    const runs = async () => ((await em.execute('select id from trace_run')) as { id: string }[]).map((r) => r.id);
    const before = new Set(await runs());
    const res = await fetch(`${app.url}/api/trace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${authority.access}`, 'content-type': 'application/json', accept: 'text/csv' },
      body: JSON.stringify({ control_unit_id: pen.unit.unitId, ts_from: day(1), ts_to: day(2), str_direction: 'FORWARD' }),
    });
    const lines = (await res.text()).trim().split('\r\n');
    expect(res.status).toBe(200);
    expect(lines).toHaveLength(1 + 5001);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0])).size).toBe(5001);
    expect((await runs()).filter((id) => !before.has(id))).toHaveLength(1);
  });
});

describe('POST /api/trace: one walk per question, caller and data version', () => {
  test("the CSV after the JSON pages reads their stored answer; a write to the event log, or another caller, walks again", async () => {
    const authority = await official(app, county.id);
    const pen = await holding(app, county, 'FEEDLOT');
    const em = app.service.orm.em.fork();
    const stock = (n: number) => stockPen(pen, n);
    await stock(3);
    const question = { control_unit_id: pen.unit.unitId, ts_from: day(1), ts_to: day(2), str_direction: 'FORWARD' };
    const runs = async () => ((await em.execute('select id from trace_run')) as { id: string }[]).map((r) => r.id);
    const csv = async (token: string) => {
      const res = await fetch(`${app.url}/api/trace`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify(question) });
      expect(res.status).toBe(200);
      return (await res.text()).trim().split('\r\n').length - 1;
    };
    const before = new Set(await runs());
    const fresh = async () => (await runs()).filter((id) => !before.has(id)).length;
    expect((await trace(authority.access, question, 2)).animals).toHaveLength(3); // two pages, one walk
    expect(await fresh()).toBe(1);
    expect(await csv(authority.access)).toBe(3);
    expect(await fresh()).toBe(1);
    // Two more animals in the pen (written without the log, as this test does) are not seen until the log moves:
    await stock(2);
    expect(await csv(authority.access)).toBe(3);
    expect(await fresh()).toBe(1);
    // Any write through the service appends to the event log (a new official): the next request walks again.
    const other = await official(app, county.id);
    expect(await csv(authority.access)).toBe(5);
    expect(await fresh()).toBe(2);
    // Another caller never reads an answer stored for someone else.
    expect((await trace(other.access, question)).animals).toHaveLength(5);
    expect(await fresh()).toBe(3);
  });

  test('a walk drops the answers stored more than ten minutes ago, rows and all, and keeps the younger ones', async () => {
    const authority = await official(app, county.id);
    const pen = await holding(app, county, 'FEEDLOT');
    const em = app.service.orm.em.fork();
    await stockPen(pen, 4);
    const ask = (to: number) => trace(authority.access, { control_unit_id: pen.unit.unitId, ts_from: day(1), ts_to: day(to), str_direction: 'FORWARD' });
    const answers = async (run: string) => Number(((await em.execute('select count(*) as n from trace_answer where run_id = ?', [run])) as { n: string }[])[0]!.n);
    const runsOf = async () => ((await em.execute('select id from trace_run order by ts_created_at, id')) as { id: string }[]).map((r) => r.id);
    const before = new Set(await runsOf());
    expect((await ask(2)).animals).toHaveLength(4);
    expect((await ask(3)).animals).toHaveLength(4);
    const [old, young] = (await runsOf()).filter((id) => !before.has(id));
    expect([await answers(old!), await answers(young!)]).toEqual([4, 4]);
    await em.execute(`update trace_run set ts_created_at = now() - interval '11 minutes' where id = ?`, [old]);
    await em.execute(`update trace_run set ts_created_at = now() - interval '9 minutes' where id = ?`, [young]);
    expect((await ask(4)).animals).toHaveLength(4);
    const left = await runsOf();
    expect(left).not.toContain(old);
    expect(left).toContain(young);
    expect([await answers(old!), await answers(young!)]).toEqual([0, 4]);
  });
});

describe('POST /api/trace: statements per request', () => {
  test('a first page that walks: the authentication, the seed with a stored answer (one statement), the walk, the page and its stays; reused, no walk', async () => {
    // The walk runs in memory (its graph refreshed on a connection of its own, not counted here): the units
    // the caller sees, the holdings; its answer is written after the response, outside the request (an owner's
    // trace adds one probe of the animals no seen unit vouches for). Walked in SQL (TEST_TRACE_GRAPH=false): one statement.
    const authority = await official(app, county.id);
    const question = { establishment_id: auction.unit.establishmentId, ts_from: day(11), ts_to: day(12), str_direction: 'FORWARD', int_max_hops: 1 };
    const first = await app.call('POST', '/api/trace?int_max_results=2', { token: authority.access, body: question });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.sql).toBe(app.config.TRACE_GRAPH ? 6 : 5);
    const again = await app.call('POST', '/api/trace?int_max_results=2', { token: authority.access, body: question });
    expect(again.body).toEqual(first.body);
    expect(again.sql).toBe(4);
    // A seed the caller does not see: refused after that one statement, nothing walked.
    const unseen = await app.call('POST', '/api/trace', { token: authority.access, body: { ...question, establishment_id: randomUUID() } });
    expect(unseen.status).toBe(422);
    expect(unseen.sql).toBe(2);
  });
});

describe('POST /api/trace: the rank of the animals', () => {
  test('fewest moves, then the contact time (seeds first), then the tag code (none last), then the animal: on every page and in the CSV', async () => {
    const authority = await official(app, county.id);
    const pen = await holding(app, county, 'FEEDLOT');
    const em = app.service.orm.em.fork();
    const ids = Array.from({ length: 11 }, () => randomUUID());
    const prefix = `076${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
    const code = (i: number) => (i % 5 === 4 ? null : `${prefix}${String((i * 7) % 11).padStart(3, '0')}`);
    for (const [i, id] of ids.entries()) {
      await em.execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) values (?, 'BOVINE', 'MALE', ?, ?)`, [id, pen.unit.unitId, day(0)]);
      // Seven animals from day 0, four arriving on day 1.5; codes in an order unrelated to the ids, two animals without a tag.
      await em.execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) values (?, ?, ?, ?)', [id, pen.unit.unitId, pen.unit.establishmentId, day(i < 7 ? 0 : 1.5)]);
      if (i % 5 === 4) continue;
      const tag = randomUUID();
      await em.execute(`insert into tag (id, str_code, str_status, animal_id) values (?, ?, 'APPLIED', ?)`, [tag, code(i), id]);
      await em.execute('update animal set current_tag_id = ? where id = ?', [tag, id]);
    }
    // From the first animal: the seed, then six contacts at day 1 (the window's start), then four at day 1.5.
    const question = { animal_id: ids[0], ts_from: day(1), ts_to: day(2), str_direction: 'FORWARD' };
    const r = await trace(authority.access, question, 3);
    const byRank = (group: number[]) => [...group].sort((x, y) => (code(x) === code(y) ? 0 : code(x) === null ? 1 : code(y) === null ? -1 : code(x)! < code(y)! ? -1 : 1) || (ids[x]! < ids[y]! ? -1 : 1));
    const expected = [0, ...byRank([1, 2, 3, 4, 5, 6]), ...byRank([7, 8, 9, 10])].map((i) => ids[i]);
    expect(r.animals.map((a) => a.animal_id)).toEqual(expected);
    const res = await fetch(`${app.url}/api/trace`, { method: 'POST', headers: { authorization: `Bearer ${authority.access}`, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify(question) });
    expect((await res.text()).trim().split('\r\n').slice(1).map((l) => l.split(',')[0])).toEqual(expected);
  });
});

/** Small networks written straight to the database: animals, their stays, and the egresses and travels they left by. */
describe('POST /api/trace: vehicles, occupancy runs, exact hops, the contact chain, what a tenant sees', () => {
  let authority: Awaited<ReturnType<typeof official>>;
  const em = () => app.service.orm.em.fork();
  beforeAll(async () => {
    authority = await official(app, county.id);
  });
  const herd = async (names: string[], unit: Holding): Promise<Record<string, string>> => {
    const ids = Object.fromEntries(names.map((n) => [n, randomUUID()]));
    for (const id of Object.values(ids)) await em().execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) values (?, 'BOVINE', 'MALE', ?, ?)`, [id, unit.unit.unitId, day(0)]);
    return ids;
  };
  const stay = (animal: string, at: { unitId: string; establishmentId: string }, from: number, to: number | null, egress: string | null = null) =>
    em().execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to, animals_egress_id) values (?, ?, ?, ?, ?, ?)', [animal, at.unitId, at.establishmentId, day(from), to === null ? null : day(to), egress]);
  /** A finished egress from `from`, with a GTA when a code is given, loaded on `travel` when one is given. */
  const egress = async (from: Holding, to: Holding, over: { gta?: string; travel?: string } = {}): Promise<string> => {
    const id = randomUUID();
    let gtaId: string | null = null;
    if (over.gta) {
      gtaId = randomUUID();
      await em().execute(
        `insert into gta (id, organization_id, str_code, int_animal_quantity, str_federative_unit, str_purpose, from_control_unit_id, to_control_unit_id, from_establishment_id, to_establishment_id, ts_issued_at, ts_valid_until, str_status)
         values (?, ?, ?, 1, ?, 'FATTENING', ?, ?, ?, ?, ?, ?, 'RECEIVED')`,
        [gtaId, from.owner.org.id, over.gta, county.str_federative_unit, from.unit.unitId, to.unit.unitId, from.unit.establishmentId, to.unit.establishmentId, day(0), day(30)],
      );
    }
    await em().execute(`insert into animals_egress (id, from_control_unit_id, to_control_unit_id, gta_id, str_status, bl_move_with_tag_reading) values (?, ?, ?, ?, 'FINISHED', true)`, [id, from.unit.unitId, to.unit.unitId, gtaId]);
    if (over.travel) await em().execute('insert into travel_embark (id, travel_id, animals_egress_id, ts_embarked_at) values (?, ?, ?, ?)', [randomUUID(), over.travel, id, day(0)]);
    return id;
  };
  const travel = async (owner: Holding, from: Holding, to: Holding): Promise<string> => {
    const id = randomUUID();
    const vehicle = randomUUID();
    const letters = () => Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');
    await em().execute(`insert into vehicle (id, organization_id, str_license_plate) values (?, ?, ?)`, [vehicle, owner.owner.org.id, `${letters()}1A23`]);
    await em().execute(
      `insert into travel (id, vehicle_id, transporter_user_id, from_control_unit_id, to_control_unit_id, str_status, ts_start_time) values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?)`,
      [id, vehicle, owner.owner.user.id, from.unit.unitId, to.unit.unitId, day(0)],
    );
    return id;
  };
  /** A second unit of the same establishment (so of the same organization). */
  const secondUnit = async (h: Holding): Promise<{ unitId: string; establishmentId: string }> => {
    const unitId = randomUUID();
    await em().execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Baia 2', 'PRODUCTION')`, [unitId, h.unit.establishmentId, `${h.unit.code}-2`]);
    return { unitId, establishmentId: h.unit.establishmentId };
  };
  const byName = (ids: Record<string, string>, r: { animals: Traced[] }) => Object.fromEntries(r.animals.map((a) => [Object.entries(ids).find(([, v]) => v === a.animal_id)?.[0] ?? a.animal_id, a]));

  test('the truck is a place: animals loaded on one travel share it from loading to unloading (a contact; the move still counts one hop)', async () => {
    const [f, g, h, k, s] = await Promise.all(['FARM', 'FARM', 'FEEDLOT', 'FEEDLOT', 'SLAUGHTERHOUSE'].map((t) => holding(app, county, t)));
    const ids = await herd(['x', 'y', 'w', 'z'], f);
    const trip = await travel(f, f, s);
    // x leaves F on day 5 and y leaves G on day 5.5 on the same travel; w leaves G at 5.5 on another truck.
    await stay(ids.x!, f.unit, 0, 5, await egress(f, s, { travel: trip }));
    await stay(ids.x!, s.unit, 6, null);
    await stay(ids.y!, g.unit, 0, 5.5, await egress(g, h, { travel: trip }));
    await stay(ids.y!, h.unit, 7, null);
    await stay(ids.w!, g.unit, 5.6, 5.7, await egress(g, k));
    await stay(ids.w!, k.unit, 8, null);
    await stay(ids.z!, h.unit, 0, null);
    const forward = await trace(authority.access, { establishment_id: f.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' });
    const by = byName(ids, forward);
    expect(Object.keys(by).sort()).toEqual(['x', 'y', 'z']);
    expect(by.y).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, via_animal_id: ids.x, via_control_unit_id: null, ts_via: day(5.5) });
    expect(by.z).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, via_animal_id: ids.y, ts_via: day(7) });
    const feedlot = forward.establishments.find((e) => e.id === h.unit.establishmentId)!;
    expect(feedlot).toMatchObject({ ts_exposure: day(7), int_hops: 1, animal_id: ids.y, control_unit_id: h.unit.unitId, int_traced_animals: 2 });
    // Backward from the slaughterhouse: x's ride reaches y on the truck at the latest shared instant (x unloaded on day 6).
    const backward = await trace(authority.access, { establishment_id: s.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'BACKWARD' });
    expect(byName(ids, backward).y).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, via_animal_id: ids.x, ts_via: day(6) });
    expect(byName(ids, backward).w).toBeUndefined();
  });

  test('a unit that empties and is exposed again later: two occupancy runs, the animal between them is not reached', async () => {
    const [f, p, q] = await Promise.all(['FARM', 'FEEDLOT', 'FARM'].map((t) => holding(app, county, t)));
    const ids = await herd(['s1', 's3', 'p1', 'p2', 'p3'], f);
    await stay(ids.s1!, f.unit, 0, 2);
    await stay(ids.s1!, p.unit, 3, 4);
    await stay(ids.s1!, q.unit, 5, null);
    await stay(ids.p1!, p.unit, 3.5, 6); // meets s1: the first run of the pen ends on day 6
    await stay(ids.p2!, p.unit, 10, 12); // alone in the empty pen: a run of its own
    await stay(ids.s3!, f.unit, 0, 9);
    await stay(ids.s3!, p.unit, 13, 15); // the pen exposed again
    await stay(ids.p3!, p.unit, 14, 20);
    const r = await trace(authority.access, { establishment_id: f.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' });
    const by = byName(ids, r);
    expect(Object.keys(by).sort()).toEqual(['p1', 'p3', 's1', 's3']);
    expect(by.p1).toMatchObject({ int_hops: 1, via_animal_id: ids.s1, ts_via: day(3.5) });
    expect(by.p3).toMatchObject({ int_hops: 1, via_animal_id: ids.s3, ts_via: day(14) });
    expect(r.establishments.find((e) => e.id === p.unit.establishmentId)).toMatchObject({ ts_exposure: day(3), int_hops: 1, int_traced_animals: 4 });
  });

  test('a hop limit: the earliest exposure and the fewest moves come by different routes, both exact', async () => {
    const [f, a, x] = await Promise.all(['FARM', 'AUCTION', 'FEEDLOT'].map((t) => holding(app, county, t)));
    const ids = await herd(['a', 'b', 'r'], f);
    const code = String(Math.floor(Math.random() * 1e9));
    // a: F → auction → X on day 4 (two moves, under a GTA into X); b: F → X on day 11 (one move); r lives at X.
    await stay(ids.a!, f.unit, 0, 1, await egress(f, a));
    await stay(ids.a!, a.unit, 2, 3, await egress(a, x, { gta: code }));
    await stay(ids.a!, x.unit, 4, null);
    await stay(ids.b!, f.unit, 0, 10);
    await stay(ids.b!, x.unit, 11, null);
    await stay(ids.r!, x.unit, 0, null);
    const question = { establishment_id: f.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' };
    const unlimited = await trace(authority.access, question);
    expect(unlimited.establishments.find((e) => e.id === x.unit.establishmentId)).toMatchObject({
      ts_exposure: day(4), int_hops: 1, animal_id: ids.a, control_unit_id: x.unit.unitId, str_gta_code: code, int_traced_animals: 3,
    });
    expect(byName(ids, unlimited).r).toMatchObject({ int_hops: 1, ts_via: day(4), via_animal_id: ids.a });
    const one = await trace(authority.access, { ...question, int_max_hops: 1 });
    // Within one move, a's stay at X is reached too: by contact with b there on day 11.
    expect(one.establishments.find((e) => e.id === x.unit.establishmentId)).toMatchObject({ ts_exposure: day(11), int_hops: 1, animal_id: ids.b, str_gta_code: null, int_traced_animals: 3 });
    expect(byName(ids, one).r).toMatchObject({ int_hops: 1, ts_via: day(11), via_animal_id: ids.b });
    expect(one.establishments.find((e) => e.id === a.unit.establishmentId)).toMatchObject({ ts_exposure: day(2), int_hops: 1, animal_id: ids.a });
    const none = await trace(authority.access, { ...question, int_max_hops: 0 });
    expect(Object.keys(byName(ids, none)).sort()).toEqual(['a', 'b']);
  });

  test('the fewest moves are exact: an animal that left a unit before a nearer exposure arrived keeps the hops of the one it met', async () => {
    const [f, v, u] = await Promise.all(['FARM', 'AUCTION', 'FEEDLOT'].map((t) => holding(app, county, t)));
    const ids = await herd(['q', 'r', 'c'], f);
    await stay(ids.q!, f.unit, 0, 0.5); // two moves to U, there on day 2
    await stay(ids.q!, v.unit, 1, 1.5);
    await stay(ids.q!, u.unit, 2, 10);
    await stay(ids.r!, f.unit, 0, 7); // one move to U, there on day 8
    await stay(ids.r!, u.unit, 8, 10);
    await stay(ids.c!, u.unit, 3, 5); // at U on days 3-5 only: it met q's exposure, not r's
    const r = await trace(authority.access, { establishment_id: f.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' });
    expect(byName(ids, r).c).toMatchObject({ int_hops: 2, via_animal_id: ids.q, ts_via: day(3) });
    // With one move allowed, c is not reached (Migration0024's walk gave the island's fewest, 1, to every stay in it).
    const one = await trace(authority.access, { establishment_id: f.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD', int_max_hops: 1 });
    expect(byName(ids, one).c).toBeUndefined();
  });

  test("an animal met on a truck is shown to an owner when it unloads at the owner's unit, not when it unloads at another tenant's", async () => {
    const [f, g, h, s] = await Promise.all(['FARM', 'FARM', 'FEEDLOT', 'SLAUGHTERHOUSE'].map((t) => holding(app, county, t)));
    const penF2 = await secondUnit(f);
    const ids = await herd(['x', 'y', 'v'], f);
    const trip = await travel(f, f, s);
    await stay(ids.x!, f.unit, 0, 5, await egress(f, s, { travel: trip }));
    await stay(ids.x!, s.unit, 6, null);
    // y and v leave G's farm on x's travel (each entered on the truck, a place without a unit): y unloads at H, v at F's second pen.
    await stay(ids.y!, g.unit, 0, 5.5, await egress(g, h, { travel: trip }));
    await stay(ids.y!, h.unit, 7, null);
    await stay(ids.v!, g.unit, 0, 5.5, await egress(g, f, { travel: trip }));
    await stay(ids.v!, penF2, 7, null);
    const question = { control_unit_id: f.unit.unitId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD', int_max_hops: 1 };
    const all = byName(ids, await trace(authority.access, question));
    expect(all.y).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, via_animal_id: ids.x, via_control_unit_id: null, ts_via: day(5.5) });
    expect(all.v).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, via_animal_id: ids.x, via_control_unit_id: null, ts_via: day(5.5) });
    const own = byName(ids, await trace(f.owner.access, question));
    expect(Object.keys(own).sort()).toEqual(['v', 'x']);
    expect(own.v).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 1, via_animal_id: ids.x, ts_via: day(5.5) });
    expect(own.v!.stays.map((st) => st.str_control_unit_code)).toEqual([`${f.unit.code}-2`]);
  });

  test("an owner's trace names no animal or unit of another tenant: a contact through one shows its time only", async () => {
    const [farmA, feedlotB] = await Promise.all([holding(app, county, 'FARM'), holding(app, county, 'FEEDLOT')]);
    const [penA2, penB2] = [await secondUnit(farmA), await secondUnit(feedlotB)];
    const ids = await herd(['m', 'n', 'k'], farmA);
    await stay(ids.m!, farmA.unit, 0, 5); // A's animal, sold to B's feedlot on day 6
    await stay(ids.m!, feedlotB.unit, 6, null);
    await stay(ids.n!, feedlotB.unit, 0, 6.5); // B's animal, met by m, then to B's second pen
    await stay(ids.n!, penB2, 7, null);
    await em().execute(`update animal set last_control_unit_id = ?, ${SET_HOLDER_OF_UNIT} where id = ?`, [penB2.unitId, penB2.unitId, ids.n]);
    await stay(ids.k!, penB2, 0, 10); // met by n in B's pen, then bought by A
    await stay(ids.k!, penA2, 11, null);
    const question = { control_unit_id: farmA.unit.unitId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' };
    const own = await trace(farmA.owner.access, question);
    const k = byName(ids, own).k!;
    expect(k).toMatchObject({ str_reached_by: 'CONTACT', int_hops: 2, via_animal_id: null, via_control_unit_id: null, ts_via: day(7) });
    expect(k.stays.map((s) => s.str_control_unit_code)).toEqual([`${farmA.unit.code}-2`]);
    expect(byName(ids, own).n).toBeUndefined();
    expect((await app.call('GET', `/api/animals/${ids.n}`, { token: farmA.owner.access })).status).toBe(404);
    expect(own.establishments.map((e) => e.id)).toEqual([farmA.unit.establishmentId]);
    expect(own.establishments[0]).toMatchObject({ int_hops: 0, animal_id: ids.m, int_traced_animals: 2 });
    // The authority of the state reads both tenants: the same contact, named.
    const all = await trace(authority.access, question);
    expect(byName(ids, all).k).toMatchObject({ via_animal_id: ids.n, via_control_unit_id: penB2.unitId, ts_via: day(7) });
  });
});
