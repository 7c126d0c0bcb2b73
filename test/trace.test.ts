import { randomUUID } from 'node:crypto';
import { startApp, type TestApp } from './helpers/app.js';
import { official } from './helpers/factories.js';
import { holding, type Holding } from './helpers/movements.js';
import { makeCounty, type TestCounty } from './helpers/places.js';

/**
 * A hand-drawn network (days from 2026-01-01):
 *   a1–a10 born at the FARM (0–10) → AUCTION (11–12) → a1–a5 FEEDLOT 1 (13–), a6–a10 FEEDLOT 2 (13–)
 *   c1–c10 at FEEDLOT 1 from 0; c1–c3 leave on day 20 for the SLAUGHTERHOUSE (21–)
 *   d1–d5 at FEEDLOT 2 from 0
 *   e1–e5 at the AUCTION 11.5–11.8 (the co-location with a1–a10), then the SLAUGHTERHOUSE (12–)
 * The farm → auction leg of a1 went under a GTA.
 */
let app: TestApp;
let county: TestCounty;
let farm: Holding, auction: Holding, feedlot1: Holding, feedlot2: Holding, slaughterhouse: Holding;
const animals: Record<string, string> = {};
let gtaCode: string;

const BASE = Date.UTC(2026, 0, 1);
const day = (n: number) => new Date(BASE + n * 86_400_000).toISOString();
const names = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

beforeAll(async () => {
  app = await startApp();
  county = await makeCounty(app);
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
afterAll(() => app.close());

interface Traced {
  animal_id: string;
  str_reached_by: string;
  int_hops: number;
  via_animal_id: string | null;
  ts_via: string | null;
  stays: { str_control_unit_code: string; ts_from: string; ts_to: string | null; str_gta_code: string | null }[];
}

const nameOf = (id: string) => Object.entries(animals).find(([, v]) => v === id)![0];
const sorted = (list: string[]) => [...list].sort((x, y) => x.localeCompare(y, 'en', { numeric: true }));

async function trace(token: string, input: Record<string, unknown>, size = 100): Promise<{ status: number; animals: Traced[]; establishments: { id: string; str_socioenvironmental_status: string }[]; body: any }> {
  const all: Traced[] = [];
  for (let page = 1; ; page++) {
    const res = await app.call('POST', `/api/trace?int_current_page=${page}&int_max_results=${size}`, { token, body: input });
    if (res.status !== 200) return { status: res.status, animals: [], establishments: [], body: res.body };
    all.push(...res.body.data);
    if (page >= res.body.meta.int_total_pages) return { status: 200, animals: all, establishments: res.body.establishments, body: res.body };
  }
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

  test('Accept: text/csv answers the whole trace, one row per stay, the same values as the JSON pages', async () => {
    const input = { establishment_id: farm.unit.establishmentId, ts_from: day(0), ts_to: day(30), str_direction: 'FORWARD' };
    const json = await trace(authority.access, input, 4);
    const res = await fetch(`${app.url}/api/trace`, { method: 'POST', headers: { authorization: `Bearer ${authority.access}`, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify(input) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[0]).toBe('animal_id,str_tag_code,str_status,str_reached_by,int_hops,via_animal_id,via_control_unit_id,ts_via,last_control_unit_id,str_control_unit_code,str_establishment_name,ts_from,ts_to,str_gta_code');
    const expected = json.animals.flatMap((a: any) =>
      a.stays.map((s: any) => [a.animal_id, a.str_tag_code, a.str_status, a.str_reached_by, a.int_hops, a.via_animal_id, a.via_control_unit_id, a.ts_via, a.last_control_unit_id, s.str_control_unit_code, s.str_establishment_name, s.ts_from, s.ts_to, s.str_gta_code].map((v) => (v === null ? '' : String(v))).join(',')),
    );
    expect(lines.slice(1)).toEqual(expected);
  });
});

describe('POST /api/trace answers of more than one CSV page', () => {
  test('a pen of 5,001 animals: the CSV streams every page from one walk, stored once for the request', async () => {
    const authority = await official(app, county.id);
    const pen = await holding(app, county, 'FEEDLOT');
    const em = app.service.orm.em.fork();
    await em.execute(`insert into animal (id, str_species, str_gender, last_control_unit_id, ts_identified_at) select gen_random_uuid(), 'BOVINE', 'MALE', ?, ? from generate_series(1, 5001)`, [pen.unit.unitId, day(0)]);
    await em.execute('insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from) select a.id, ?, ?, ? from animal a where a.last_control_unit_id = ?', [pen.unit.unitId, pen.unit.establishmentId, day(0), pen.unit.unitId]);
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
