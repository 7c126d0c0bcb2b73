import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomInt, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startApp, type TestApp } from './helpers/app.js';
import { member } from './helpers/factories.js';
import { CountyImportError, importCountyFiles } from '../src/places/county.import.js';
import { loadCountiesIfEmpty, shippedCountyFiles } from '../src/places/county.autoload.js';
import { loadConfig } from '../src/config.js';
import { migrate, openOrm } from '../src/db/orm.js';
import { createLogger } from '../src/shared/logger.js';
import { requestScope, type RequestScope } from '../src/shared/request-scope.js';
import { scratchDatabase } from './helpers/scratch-db.js';
import { ibgeCheckDigit } from '../src/places/ibge.js';

const SHARED_MUNICIPIOS = fileURLToPath(new URL('../docs/data/municipios.csv', import.meta.url));
const SHARED_ESTADOS = fileURLToPath(new URL('../docs/data/estados.csv', import.meta.url));
const HEADER = 'codigo_ibge,nome,latitude,longitude,capital,codigo_uf,siafi_id,ddd,fuso_horario';
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let app: TestApp;
let token: string;
let dir: string;
/** A made-up federative unit of this run (code 60-99 and a Q* sigla: no real UF), so counts here are ours alone. */
let ufCode: string;
let uf: string;
const codes: string[] = [];

const db = () => app.service.orm.em.fork();
const write = (name: string, text: string): string => {
  const path = join(dir, `${randomUUID().slice(0, 8)}-${name}`);
  writeFileSync(path, text);
  return path;
};
/** A fresh code in the run's UF with a valid check digit. */
const newCode = (): string => {
  for (;;) {
    const six = `${ufCode}${String(randomInt(10000)).padStart(4, '0')}`;
    const code = `${six}${ibgeCheckDigit(six)}`;
    if (!codes.includes(code)) {
      codes.push(code);
      return code;
    }
  }
};
const withBadDigit = (code: string): string => `${code.slice(0, 6)}${(Number(code[6]) + 1) % 10}`;
const estados = () => write('estados.csv', `codigo_uf,uf,nome,latitude,longitude,regiao\n${ufCode},${uf},Estado de Teste,0,0,Teste\n`);
const municipio = (code: string, name: string) => `${code},${name},-10.1,-50.2,0,${ufCode},9999,99,America/Sao_Paulo`;
const countRows = async (list: string[]): Promise<number> =>
  (await db().execute<{ n: number }[]>('select count(*)::int as n from county where str_ibge_code in (?)', [list]))[0]!.n;

beforeAll(async () => {
  app = await startApp();
  token = (await member(app)).access;
  dir = mkdtempSync(join(tmpdir(), 'counties-'));
  for (;;) {
    ufCode = String(randomInt(60, 100));
    uf = `Q${String.fromCharCode(65 + randomInt(26))}`;
    const [{ n }] = await db().execute<{ n: number }[]>('select count(*)::int as n from county where str_federative_unit = ? or str_ibge_code like ?', [uf, `${ufCode}%`]);
    if (n === 0) break;
  }
});

afterAll(async () => {
  // Our made-up counties leave with the run; real ones stay (reference data other files may use).
  await db().execute('delete from county where str_federative_unit = ?', [uf]);
  rmSync(dir, { recursive: true, force: true });
  await app.close();
});

describe('import', () => {
  test('a CSV loads, a second run changes nothing, and a changed name is the only update', async () => {
    const [a, b, c] = [newCode(), newCode(), newCode()];
    const rows = [municipio(a, 'Águas Claras do Teste'), municipio(b, '"Vila Nova, do Teste"'), municipio(c, "Alta Floresta D'Oeste do Teste")];
    const m = write('municipios.csv', `${HEADER}\n${rows.join('\n')}\n`);
    const e = estados();
    expect(await importCountyFiles(db(), [m, e])).toEqual({ read: 3, inserted: 3, updated: 0, unchanged: 0 });
    const stored = await db().execute<{ id: string; str_ibge_code: string; str_name: string; str_federative_unit: string; ts_updated_at: Date }[]>(
      'select id, str_ibge_code, str_name, str_federative_unit, ts_updated_at from county where str_ibge_code in (?) order by str_ibge_code',
      [[a, b, c]],
    );
    expect(stored.map((r) => [r.str_ibge_code, r.str_name, r.str_federative_unit])).toEqual(
      [
        [a, 'Águas Claras do Teste', uf],
        [b, 'Vila Nova, do Teste', uf],
        [c, "Alta Floresta D'Oeste do Teste", uf],
      ].sort((x, y) => x[0]!.localeCompare(y[0]!)),
    );

    expect(await importCountyFiles(db(), [m, e])).toEqual({ read: 3, inserted: 0, updated: 0, unchanged: 3 });
    const again = await db().execute<{ id: string; ts_updated_at: Date }[]>('select id, ts_updated_at from county where str_ibge_code in (?) order by str_ibge_code', [[a, b, c]]);
    expect(again).toEqual(stored.map((r) => ({ id: r.id, ts_updated_at: r.ts_updated_at })));

    const renamed = write('municipios.csv', `${HEADER}\n${[municipio(a, 'Águas Claras Renomeada'), rows[1], rows[2]].join('\n')}\n`);
    expect(await importCountyFiles(db(), [renamed, e])).toEqual({ read: 3, inserted: 0, updated: 1, unchanged: 2 });
    const idOfA = stored.find((r) => r.str_ibge_code === a)!.id;
    const events = await db().execute<{ str_type: string; str_payload: string }[]>("select str_type, str_payload from event where str_record_type = 'County' and record_id = ? order by seq", [idOfA]);
    expect(events.map((ev) => [ev.str_type, JSON.parse(ev.str_payload).str_name])).toEqual([
      ['COUNTY_CREATED', 'Águas Claras do Teste'],
      ['COUNTY_UPDATED', 'Águas Claras Renomeada'],
    ]);
  });

  test('real rows of the IBGE list, one of them a check-digit exception, load and re-load idempotently', async () => {
    const real = ['3550308,São Paulo,-23.5329,-46.6395,1,35,7107,11,America/Sao_Paulo', '2201919,Bom Princípio do Piauí,-3.19631,-41.6403,0,22,1112,86,America/Fortaleza', '5300108,Brasília,-15.7795,-47.9297,1,53,9701,61,America/Sao_Paulo'];
    const m = write('municipios.csv', `${HEADER}\n${real.join('\n')}\n`);
    const e = SHARED_ESTADOS;
    const first = await importCountyFiles(db(), [m, e]);
    // The database is shared: another file may have loaded these already.
    expect(first.read).toBe(3);
    expect(first.inserted + first.updated + first.unchanged).toBe(3);
    expect(await importCountyFiles(db(), [m, e])).toEqual({ read: 3, inserted: 0, updated: 0, unchanged: 3 });
    const res = await app.call('GET', '/api/counties?str_ibge_code=2201919', { token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { str_name: string; str_federative_unit: string }) => [c.str_name, c.str_federative_unit])).toEqual([['Bom Princípio do Piauí', 'PI']]);
  });

  test('a bad check digit refuses the whole file, naming the line, and writes nothing', async () => {
    const good = newCode();
    const bad = withBadDigit(newCode());
    const m = write('municipios.csv', `${HEADER}\n${municipio(good, 'Boa do Teste')}\n${municipio(bad, 'Errada do Teste')}\n`);
    const err = await importCountyFiles(db(), [m, estados()]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CountyImportError);
    expect((err as CountyImportError).problems).toEqual([`${m} line 3: code "${bad}" has a bad check digit (expected ${ibgeCheckDigit(bad.slice(0, 6))})`]);
    expect(await countRows([good, bad])).toBe(0);
  });

  test('other refusals name their line: a code outside its UF, an unknown UF, a duplicate, an empty name', async () => {
    const [a, b] = [newCode(), newCode()];
    const otherSix = `${ufCode === '99' ? '98' : '99'}0000`;
    const other = `${otherSix}${ibgeCheckDigit(otherSix)}`;
    const lines = [municipio(a, 'Um do Teste'), `${other},Fora do Teste,0,0,0,${ufCode},1,1,x`, `${b},Sem Estado,0,0,0,10,1,1,x`, municipio(a, 'Repetido'), municipio(b, '')];
    const m = write('municipios.csv', `${HEADER}\n${lines.join('\n')}\n`);
    const err = (await importCountyFiles(db(), [m, estados()]).catch((e: unknown) => e)) as CountyImportError;
    expect(err).toBeInstanceOf(CountyImportError);
    expect(err.problems).toEqual([
      `${m} line 3: codigo_ibge ${other} does not start with its codigo_uf ${ufCode}`,
      `${m} line 4: codigo_uf "10" is not in ${err.problems[1]!.split(' is not in ')[1]}`,
      `${m} line 5: code ${a} already given at ${m} line 2`,
      `${m} line 6: name is empty`,
      `${m} line 6: code ${b} already given at ${m} line 4`,
    ]);
    expect(err.problems[1]).toMatch(/estados\.csv$/);
    expect(await countRows([a, b, other])).toBe(0);
  });

  test("IBGE's localidades JSON loads, the UF through the micro-region or, without one, the immediate region", async () => {
    const [a, b, c] = [newCode(), newCode(), newCode()];
    const items = [
      { id: Number(a), nome: 'Micro do Teste', microrregiao: { id: 1, nome: 'x', mesorregiao: { id: 2, nome: 'y', UF: { id: Number(ufCode), sigla: uf, nome: 'Teste' } } } },
      { id: Number(b), nome: 'Imediata do Teste', microrregiao: null, 'regiao-imediata': { id: 3, nome: 'z', 'regiao-intermediaria': { id: 4, nome: 'w', UF: { id: Number(ufCode), sigla: uf, nome: 'Teste' } } } },
    ];
    const json = write('municipios.json', JSON.stringify(items));
    expect(await importCountyFiles(db(), [json])).toEqual({ read: 2, inserted: 2, updated: 0, unchanged: 0 });
    expect(await importCountyFiles(db(), [json])).toEqual({ read: 2, inserted: 0, updated: 0, unchanged: 2 });
    const rows = await db().execute<{ str_name: string; str_federative_unit: string }[]>('select str_name, str_federative_unit from county where str_ibge_code in (?) order by str_name', [[a, b]]);
    expect(rows).toEqual([
      { str_name: 'Imediata do Teste', str_federative_unit: uf },
      { str_name: 'Micro do Teste', str_federative_unit: uf },
    ]);

    const bad = write('municipios.json', JSON.stringify([{ ...items[0], id: Number(c) }, { ...items[0], id: Number(withBadDigit(newCode())) }]));
    const err = (await importCountyFiles(db(), [bad]).catch((e: unknown) => e)) as CountyImportError;
    expect(err).toBeInstanceOf(CountyImportError);
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} item 2: code "\\d{7}" has a bad check digit`));
    expect(await countRows([c])).toBe(0);
  });
});

describe('reads', () => {
  const names = ['São Paulo do Teste', 'Itaú de Minas do Teste', 'Acará do Teste', 'Sapezal do Teste', 'Ouro Preto do Teste'];
  const ids = new Map<string, string>();

  beforeAll(async () => {
    const rows = names.map((n) => municipio(newCode(), n));
    await importCountyFiles(db(), [write('municipios.csv', `${HEADER}\n${rows.join('\n')}\n`), estados()]);
    const stored = await db().execute<{ id: string; str_name: string }[]>('select id, str_name from county where str_name in (?)', [names]);
    for (const r of stored) ids.set(r.str_name, r.id);
  });

  test('the index filters by UF, pages with meta, and orders by name', async () => {
    const ours = await app.call('GET', `/api/counties?str_federative_unit=${uf}&str_query=do%20teste&int_max_results=500`, { token });
    const total = ours.body.meta.int_total_results as number;
    expect(total).toBeGreaterThanOrEqual(names.length);
    const page1 = await app.call('GET', `/api/counties?str_federative_unit=${uf}&int_max_results=2`, { token });
    expect(page1.status).toBe(200);
    expect(Object.keys(page1.body).sort()).toEqual(['data', 'meta']);
    const all = await app.call('GET', `/api/counties?str_federative_unit=${uf}&int_max_results=500`, { token });
    const n = all.body.meta.int_total_results as number;
    expect(page1.body.meta).toEqual({ int_current_page: 1, int_max_results: 2, int_total_results: n, int_total_pages: Math.ceil(n / 2) });
    expect(page1.body.data).toHaveLength(2);
    const sorted = [...all.body.data.map((c: { str_name: string }) => c.str_name)];
    expect(sorted).toEqual([...sorted].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    const page2 = await app.call('GET', `/api/counties?str_federative_unit=${uf}&int_max_results=2&int_current_page=2`, { token });
    expect(page2.body.meta.int_current_page).toBe(2);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual(all.body.data.slice(2, 4).map((c: { id: string }) => c.id));
    for (const c of all.body.data) expect(c.str_federative_unit).toBe(uf);
    for (const name of names) expect(all.body.data.map((c: { str_name: string }) => c.str_name)).toContain(name);
  });

  test('a county has exactly the documented fields', async () => {
    const id = ids.get('Acará do Teste')!;
    const res = await app.call('GET', `/api/counties/${id}`, { token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['id', 'str_federative_unit', 'str_ibge_code', 'str_name', 'ts_created_at', 'ts_updated_at']);
    expect(res.body.data).toMatchObject({ id, str_name: 'Acará do Teste', str_federative_unit: uf });
    expect(res.body.data.str_ibge_code).toMatch(new RegExp(`^${ufCode}\\d{5}$`));
    expect(res.body.data.ts_created_at).toMatch(ISO_Z);
    expect(res.body.data.ts_updated_at).toMatch(ISO_Z);
  });

  test('name search ignores accents and case', async () => {
    for (const q of ['sao paulo', 'SÃO PAULO', 'Sao Paulo do teste']) {
      const res = await app.call('GET', `/api/counties?str_federative_unit=${uf}&str_query=${encodeURIComponent(q)}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: { str_name: string }) => c.str_name)).toEqual(['São Paulo do Teste']);
    }
    const itau = await app.call('POST', '/api/counties/search', { token, body: { str_federative_unit: uf, str_query: 'itau de minas' } });
    expect(itau.status).toBe(200);
    expect(itau.body.data.map((c: { id: string }) => c.id)).toEqual([ids.get('Itaú de Minas do Teste')]);
    const real = await app.call('GET', '/api/counties?str_federative_unit=SP&str_query=sao%20paulo', { token });
    expect(real.body.data.map((c: { str_ibge_code: string }) => c.str_ibge_code)).toContain('3550308');
  });

  test('search takes exact fields and refuses unknown ones naming the accepted keys', async () => {
    const exact = await app.call('POST', '/api/counties/search', { token, body: { str_name: 'Sapezal do Teste', str_federative_unit: uf } });
    expect(exact.status).toBe(200);
    expect(exact.body.data.map((c: { id: string }) => c.id)).toEqual([ids.get('Sapezal do Teste')]);
    const unknown = await app.call('POST', '/api/counties/search', { token, body: { str_uf: uf } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('VALIDATION_FAILED');
    expect(Object.keys(unknown.body.detail.fields)).toEqual(['str_uf']);
    expect(unknown.body.detail.accepted_keys).toEqual(expect.arrayContaining(['str_federative_unit', 'str_ibge_code', 'str_name', 'str_query']));
    const badQuery = await app.call('GET', '/api/counties?bl_capital=true', { token });
    expect(badQuery.status).toBe(422);
    expect(Object.keys(badQuery.body.detail.fields)).toEqual(['bl_capital']);
  });

  test('404 for an unknown id, 400 for a malformed one, 401 without a token', async () => {
    const unknown = await app.call('GET', `/api/counties/${randomUUID()}`, { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('NOT_FOUND');
    const malformed = await app.call('GET', '/api/counties/3550308', { token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('BAD_REQUEST');
    for (const [method, path] of [['GET', '/api/counties'], ['POST', '/api/counties/search'], ['GET', `/api/counties/${ids.get('Acará do Teste')}`]] as const) {
      const res = await app.call(method, path, method === 'POST' ? { body: {} } : {});
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('UNAUTHENTICATED');
    }
    const gql = await app.graphql('{ counties { meta { int_total_results } } }');
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  test('GraphQL answers the same records', async () => {
    const res = await app.graphql(
      'query($f: JSONObject, $id: UUID!) { counties(filter: $f, page: { int_max_results: 1 }) { data { id str_name str_ibge_code str_federative_unit } meta { int_total_results } } county(id: $id) { id str_name } }',
      { f: { str_federative_unit: uf, str_query: 'ouro preto' }, id: ids.get('Sapezal do Teste') },
      token,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.counties.data).toEqual([{ id: ids.get('Ouro Preto do Teste'), str_name: 'Ouro Preto do Teste', str_ibge_code: expect.stringMatching(/^\d{7}$/), str_federative_unit: uf }]);
    expect(res.body.data.counties.meta.int_total_results).toBe(1);
    expect(res.body.data.county).toEqual({ id: ids.get('Sapezal do Teste'), str_name: 'Sapezal do Teste' });
  });

  test("the index's statement count does not grow with the page size", async () => {
    const small = await app.call('GET', `/api/counties?str_federative_unit=${uf}&int_max_results=1`, { token });
    const large = await app.call('GET', `/api/counties?str_federative_unit=${uf}&int_max_results=500`, { token });
    expect(small.status).toBe(200);
    expect(large.body.data.length).toBeGreaterThanOrEqual(names.length);
    expect(Number.isFinite(small.sql)).toBe(true);
    expect(large.sql).toBe(small.sql);
  });

  test("a user's county_id must name a county", async () => {
    const someone = await member(app);
    const bad = await app.call('PATCH', `/api/users/${someone.user.id}`, { token: someone.access, body: { county_id: randomUUID() } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe('VALIDATION_FAILED');
    expect(bad.body.detail.fields).toEqual({ county_id: ['no such county'] });
    const [{ county_id: unchanged }] = await db().execute<{ county_id: string | null }[]>('select county_id from "user" where id = ?', [someone.user.id]);
    expect(unchanged).toBeNull();
    const good = await app.call('PATCH', `/api/users/${someone.user.id}`, { token: someone.access, body: { county_id: ids.get('Acará do Teste') } });
    expect(good.status).toBe(200);
    expect(good.body.data.county_id).toBe(ids.get('Acará do Teste'));
    // Our made-up counties are deleted after the run: let go of this one.
    await db().execute('update "user" set county_id = null where id = ?', [someone.user.id]);
  });
});

test(
  'the full IBGE list of docs/data loads: every code of the file is a county afterwards, and a re-run changes nothing',
  async () => {
    const fileCodes = readFileSync(SHARED_MUNICIPIOS, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[0]!);
    expect(new Set(fileCodes).size).toBe(fileCodes.length);
    expect(fileCodes.length).toBeGreaterThanOrEqual(5570);
    const first = await importCountyFiles(db(), [SHARED_MUNICIPIOS, SHARED_ESTADOS]);
    expect(first.read).toBe(fileCodes.length);
    expect(first.inserted + first.updated + first.unchanged).toBe(fileCodes.length);
    expect(await countRows(fileCodes)).toBe(fileCodes.length);
    expect(await importCountyFiles(db(), [SHARED_MUNICIPIOS, SHARED_ESTADOS])).toEqual({ read: fileCodes.length, inserted: 0, updated: 0, unchanged: fileCodes.length });
    const sp = await app.call('GET', '/api/counties?str_ibge_code=3550308', { token });
    expect(sp.body.data.map((c: { str_name: string; str_federative_unit: string }) => [c.str_name, c.str_federative_unit])).toEqual([['São Paulo', 'SP']]);
    const perUf = await db().execute<{ n: number }[]>("select count(distinct str_federative_unit)::int as n from county where str_ibge_code in (?)", [fileCodes]);
    expect(perUf[0]!.n).toBe(27);
  },
  120_000,
);

describe('the shipped list, loaded at start into an empty database', () => {
  const log = createLogger('silent');
  const fileCodes = () => readFileSync(SHARED_MUNICIPIOS, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',')[0]!);

  test('the service finds the list in docs/data, from the sources as from a build', () => {
    expect(shippedCountyFiles()).toEqual([SHARED_MUNICIPIOS, SHARED_ESTADOS]);
  });

  test('a database that holds counties is left alone: one statement, nothing written', async () => {
    const scope: RequestScope = { requestId: 'county-autoload', statements: 0 };
    const before = await db().execute<{ n: number }[]>("select count(*)::int as n from event where str_type = 'COUNTY_CREATED'");
    expect(await requestScope.run(scope, () => loadCountiesIfEmpty(db(), log))).toBeNull();
    expect(scope.statements).toBe(1);
    expect(await db().execute<{ n: number }[]>("select count(*)::int as n from event where str_type = 'COUNTY_CREATED'")).toEqual(before);
  });

  (process.env.DATABASE_URL ? test : test.skip)(
    'a service started on an empty PostgreSQL answers the whole list; two instances loading at once load it once',
    async () => {
      const scratch = await scratchDatabase('counties_autoload');
      try {
        // Two instances of the service starting at once on one migrated, empty database.
        const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: scratch.url, DB_POOL_MAX: '2' });
        const orms = [await openOrm(config), await openOrm(config)];
        try {
          await migrate(orms[0]!);
          const reports = await Promise.all(orms.map((orm) => loadCountiesIfEmpty(orm.em.fork(), log)));
          const loaded = reports.filter((r) => r !== null);
          expect(loaded).toEqual([{ read: fileCodes().length, inserted: fileCodes().length, updated: 0, unchanged: 0 }]);
          const [counts] = await orms[0]!.em.fork().execute<{ counties: number; events: number }[]>(
            "select (select count(*)::int from county) as counties, (select count(*)::int from event where str_type = 'COUNTY_CREATED') as events",
          );
          expect(counts).toEqual({ counties: fileCodes().length, events: fileCodes().length });
        } finally {
          await Promise.all(orms.map((orm) => orm.close()));
        }
        await scratch.drop();
        // A first start, as `npm start` does it: migrations, then the list, then the reads.
        const fresh = await scratchDatabase('counties_autoload');
        const started = await startApp({ DATABASE_URL: fresh.url });
        try {
          const reader = (await member(started)).access;
          const all = await started.call('GET', '/api/counties?int_max_results=1', { token: reader });
          expect(all.status).toBe(200);
          expect(all.body.meta.int_total_results).toBe(fileCodes().length);
          const sp = await started.call('GET', '/api/counties?str_ibge_code=3550308', { token: reader });
          expect(sp.body.data.map((c: { str_name: string; str_federative_unit: string }) => [c.str_name, c.str_federative_unit])).toEqual([['São Paulo', 'SP']]);
        } finally {
          await started.close();
          await fresh.drop();
        }
      } finally {
        await scratch.drop();
      }
    },
    180_000,
  );
});
