/**
 * Tags leaving service in bulk: wall time and SQL statements of one POST /api/tags-writeoffs for
 * 5 and 500 unused tags, for 500 applied tags whose animals die, and of one POST
 * /api/tags-replacements for 500 animals. The statement counts must not grow with the tags. On
 * in-memory PGlite, and, when DATABASE_URL is set, on a scratch database `bench_tags_writeoff` on
 * that PostgreSQL (created through the admin connection, dropped afterwards).
 * Run: npm run build && node_modules/.bin/node dist/bench/tags-writeoff.bench.js
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Service } from '../src/server.js';
import { benchOwner, benchUnit, exitWhenDone, onEachDatabase, postJson, serve, signIn, type Reply } from './support.js';

const PASSWORD = 'bench-password-1';
let nextBlock = 100_000;

/** A box of n AVAILABLE tags at the unit, set-based; with animals, each tag APPLIED on an ACTIVE animal. */
async function stock(service: Service, unitId: string, n: number, animals: boolean): Promise<string[]> {
  const em = service.orm.em.fork();
  const begin = `076${String(nextBlock++).padStart(9, '0')}000`;
  const boxId = randomUUID();
  await em.execute(`insert into tags_box (id, str_code, str_begin, str_finish, int_quantity, str_status, control_unit_id) values (?, ?, ?, lpad((?::bigint + ? - 1)::text, 15, '0'), ?, 'IN_STOCK', ?)`, [
    boxId, `BOX-${begin}`, begin, begin, n, n, unitId,
  ]);
  const rows = await em.execute<{ str_code: string }[]>(
    `insert into tag (id, str_code, str_status, tags_box_id, last_control_unit_id)
       select gen_random_uuid(), lpad((?::bigint + g)::text, 15, '0'), 'AVAILABLE', ?, ? from generate_series(0, ? - 1) g returning str_code`,
    [begin, boxId, unitId, n],
  );
  if (animals) {
    await em.transactional(async (tx) => {
      await tx.execute(
        `insert into animal (id, str_species, str_gender, last_control_unit_id, current_tag_id) select gen_random_uuid(), 'BOVINE', 'FEMALE', ?, t.id from tag t where t.tags_box_id = ?`,
        [unitId, boxId],
      );
      await tx.execute(`update tag set str_status = 'APPLIED', animal_id = a.id, last_control_unit_id = null from animal a where a.current_tag_id = tag.id and tag.tags_box_id = ?`, [boxId]);
    });
  }
  return rows.map((r) => r.str_code).sort();
}

async function run(service: Service): Promise<void> {
  const { org, user } = await benchOwner(service, PASSWORD, 'OPERATOR');
  const unitId = await benchUnit(service, org.id, 'PRODUCTION', 'Retiro');
  const url = await serve(service);
  const token = await signIn(url, user.str_email, PASSWORD, org.id);

  const report = (label: string, r: Reply<unknown>) => {
    if (r.status !== 201) throw new Error(`${label}: ${r.status} ${JSON.stringify(r.json).slice(0, 500)}`);
    console.log(`  ${label.padEnd(44)} ${r.ms.toFixed(0).padStart(5)} ms, ${r.sql} SQL statements`);
  };
  for (const n of [5, 500]) {
    const codes = await stock(service, unitId, n, false);
    report(`writeoff of ${n} unused tags (DEFECTIVE)`, await postJson(url, '/api/tags-writeoffs', { control_unit_id: unitId, str_reason: 'DEFECTIVE', tags: codes.map((str_code) => ({ str_code })) }, token));
  }
  for (const n of [5, 500]) {
    const codes = await stock(service, unitId, n, true);
    report(`writeoff of ${n} applied tags (ANIMAL_DEATH)`, await postJson(url, '/api/tags-writeoffs', { control_unit_id: unitId, str_reason: 'ANIMAL_DEATH', tags: codes.map((str_code) => ({ str_code })) }, token));
  }
  for (const n of [5, 500]) {
    const olds = await stock(service, unitId, n, true);
    const news = await stock(service, unitId, n, false);
    const tags = olds.map((c, i) => ({ str_tag_code: c, str_new_tag_code: news[i], str_reason: 'LOST' }));
    report(`replacement of ${n} animals' tags`, await postJson(url, '/api/tags-replacements', { control_unit_id: unitId, tags }, token));
  }
}

exitWhenDone(() => onEachDatabase('bench_tags_writeoff', (where) => where, run));
