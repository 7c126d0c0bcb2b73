/**
 * The socio-environmental propagation at scale (issue 10, "Scale and speed"): 100,000 animals that
 * once stood in one establishment (40% still there, 60% since moved to 20 other holdings) plus
 * 50,000 animals that never did, generated set-based; then PATCH /api/establishments/{id} with
 * str_socioenvironmental_status NON_COMPLIANT (every one of the 100,000 gets worse: an alert per
 * holding), and back to COMPLIANT (every one gets better again: no alert). Wall time and SQL
 * statements of each request, and the propagating statement's share. On a scratch database
 * `bench_socio` of the PostgreSQL in DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 * Run: npm run bench:socio
 */
import 'reflect-metadata';
import type { Service } from '../src/server.js';
import { benchOwner, benchUnit, exitWhenDone, onPostgres, serve, signIn } from './support.js';

const PASSWORD = 'bench-password-1';
const AFFECTED = Number(process.env.BENCH_ANIMALS ?? 100_000);
const BYSTANDERS = AFFECTED / 2;
const HOLDINGS = 20;

async function patch(url: string, path: string, body: unknown, token: string): Promise<{ status: number; sql: string | null; ms: number; json: unknown }> {
  const started = performance.now();
  const res = await fetch(url + path, { method: 'PATCH', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const json: unknown = await res.json();
  return { status: res.status, sql: res.headers.get('x-sql-statements'), ms: performance.now() - started, json };
}

/** The animals and their stays, set-based. */
async function generate(service: Service, originUnit: string, holdings: string[]): Promise<void> {
  const em = service.orm.em.fork();
  const started = performance.now();
  // The affected: all identified at the origin; 60% since moved to one of the holdings (a closed stay at the origin, an open one there).
  await em.execute(
    `with made as (insert into animal (id, str_species, str_gender, str_status, last_control_unit_id, ts_identified_at, ts_created_at, ts_updated_at)
       select gen_random_uuid(), 'BOVINE', case when g % 2 = 0 then 'FEMALE' else 'MALE' end, 'ACTIVE',
              case when g % 10 < 4 then ?::uuid else (array[?]::uuid[])[1 + (g / 10) % ?] end, now() - interval '200 days', now(), now()
         from generate_series(1, ?) g
       returning id, last_control_unit_id, ts_identified_at)
     insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from, ts_to)
     select m.id, o.id, o.establishment_id, m.ts_identified_at, case when m.last_control_unit_id <> o.id then now() - interval '50 days' end
       from made m cross join (select id, establishment_id from control_unit where id = ?) o
     union all
     select m.id, cu.id, cu.establishment_id, now() - interval '50 days', null
       from made m join control_unit cu on cu.id = m.last_control_unit_id where m.last_control_unit_id <> ?`,
    [originUnit, holdings, holdings.length, AFFECTED, originUnit, originUnit],
  );
  // Bystanders: born and kept at the holdings, never at the origin.
  await em.execute(
    `with made as (insert into animal (id, str_species, str_gender, str_status, last_control_unit_id, ts_identified_at, ts_created_at, ts_updated_at)
       select gen_random_uuid(), 'BOVINE', 'FEMALE', 'ACTIVE', (array[?]::uuid[])[1 + g % ?], now() - interval '100 days', now(), now() from generate_series(1, ?) g
       returning id, last_control_unit_id, ts_identified_at)
     insert into animal_stay (animal_id, control_unit_id, establishment_id, ts_from)
     select m.id, m.last_control_unit_id, cu.establishment_id, m.ts_identified_at from made m join control_unit cu on cu.id = m.last_control_unit_id`,
    [holdings, holdings.length, BYSTANDERS],
  );
  await em.execute('analyze animal');
  await em.execute('analyze animal_stay');
  const [c] = await em.execute<{ animals: number; stays: number }[]>('select (select count(*)::int from animal) as animals, (select count(*)::int from animal_stay) as stays');
  console.log(`  generated ${c!.animals} animals, ${c!.stays} stays in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function run(service: Service): Promise<void> {
  const { org, user } = await benchOwner(service, PASSWORD);
  await service.orm.em.fork().execute('update "user" set bl_admin = true where id = ?', [user.id]);
  const originUnit = await benchUnit(service, org.id, 'PRODUCTION', 'Origem');
  const holdings: string[] = [];
  for (let i = 0; i < HOLDINGS; i++) holdings.push(await benchUnit(service, org.id, 'PRODUCTION', `Destino ${i + 1}`));
  await generate(service, originUnit, holdings);
  const [{ establishment_id: establishmentId }] = (await service.orm.em.fork().execute<{ establishment_id: string }[]>('select establishment_id from control_unit where id = ?', [originUnit])) as [{ establishment_id: string }];
  const url = await serve(service);
  const token = await signIn(url, user.str_email, PASSWORD, org.id);

  for (const status of ['NON_COMPLIANT', 'COMPLIANT']) {
    const res = await patch(url, `/api/establishments/${establishmentId}`, { str_socioenvironmental_status: status }, token);
    if (res.status !== 200) throw new Error(`${status}: ${res.status} ${JSON.stringify(res.json).slice(0, 500)}`);
    const em = service.orm.em.fork();
    const [event] = await em.execute<{ str_payload: string }[]>(
      "select str_payload from event where str_record_type = 'Establishment' and record_id = ? and str_type = 'ESTABLISHMENT_ANIMALS_SOCIOENVIRONMENTAL_RECOMPUTED' order by seq desc limit 1",
      [establishmentId],
    );
    const changes = (JSON.parse(event!.str_payload) as { changes: Record<string, number> }).changes;
    const [n] = await em.execute<{ n: number }[]>('select count(*)::int as n from animal where str_socioenvironmental_status = ?', [status]);
    console.log(
      `  → ${status.padEnd(13)} ${res.ms.toFixed(0).padStart(6)} ms, ${res.sql} SQL statements; ${changes.int_animals_changed} animals changed (${changes.int_animals_worse} worse), ${changes.int_alerts} alerts; ${n!.n} animals now ${status}`,
    );
  }
}

const admin = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
exitWhenDone(() => onPostgres(admin, 'bench_socio', (where) => `Socio-environmental propagation, ${AFFECTED} animals that once stood in the establishment + ${BYSTANDERS} that never did, on ${where}`, run));
