/**
 * A supplier's tags ingress and its evaluation over HTTP: one box of 10,000 codes (and, for
 * comparison, one of 10), each size RUNS times on fresh code ranges; prints the median wall time
 * of the create (POST /api/tags-ingress) and of the evaluation (POST /api/tags-ingress/:id/evaluate)
 * and the SQL statements each ran (X-SQL-Statements). On in-memory PGlite, and, when DATABASE_URL
 * is set, on a scratch database `bench_tags_<pid>` on that PostgreSQL (created through the admin
 * connection, dropped afterwards). Run: npm run bench:tags
 */
import 'reflect-metadata';
import type { Service } from '../src/server.js';
import { codeAt } from '../src/tags/tag.rules.js';
import { benchOwner, benchUnit, exitWhenDone, onEachDatabase, postJson, serve, signIn } from './support.js';

const SIZES = [10, Number(process.env.BENCH_TAGS ?? 10_000)];
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PASSWORD = 'bench-password-1';

/** What the bench reads of an ingress. */
interface Ingress {
  data: { id: string; tags_boxes: { id: string }[] };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function run(service: Service): Promise<void> {
  const { org, user } = await benchOwner(service, PASSWORD);
  const unitId = await benchUnit(service, org.id, 'TAG_STOCK', 'Estoque');
  const url = await serve(service);
  const token = await signIn(url, user.str_email, PASSWORD, org.id);
  // Ranges one after another from a block this run owns: never overlapping, never reused.
  let next = `076${String(Math.floor(Math.random() * 900) + 100)}000000000`;
  for (const size of SIZES) {
    const creates: number[] = [];
    const evaluations: number[] = [];
    const sql = new Set<string>();
    for (let i = 0; i < RUNS + 1; i++) {
      const begin = next;
      next = codeAt(begin, size);
      const created = await postJson<Ingress>(url, '/api/tags-ingress', { to_control_unit_id: unitId, tags_boxes: [{ str_begin: begin, str_finish: codeAt(begin, size - 1) }] }, token);
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.json)}`);
      const ingress = created.json.data;
      const body = { tags_boxes: ingress.tags_boxes.map((b) => ({ id: b.id, str_status: 'ACCEPTED' })) };
      const evaluated = await postJson<Ingress>(url, `/api/tags-ingress/${ingress.id}/evaluate`, body, token);
      if (evaluated.status !== 200) throw new Error(`evaluate: ${evaluated.status} ${JSON.stringify(evaluated.json)}`);
      if (i === 0) continue; // warm-up, not reported
      creates.push(created.ms);
      evaluations.push(evaluated.ms);
      sql.add(`${created.sql} + ${evaluated.sql}`);
    }
    console.log(
      `  ${String(size).padStart(6)} tags: create median ${median(creates).toFixed(1)} ms, evaluate median ${median(evaluations).toFixed(1)} ms, ` +
        `together ${median(creates.map((c, i) => c + evaluations[i]!)).toFixed(1)} ms (${RUNS} runs); SQL statements create + evaluate: ${[...sql].join(', ')}`,
    );
  }
  const [{ n }] = await service.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from tag where last_control_unit_id = ?`, [unitId]);
  console.log(`  tags at the unit afterwards: ${n}`);
}

exitWhenDone(() => onEachDatabase(`bench_tags_${process.pid}`, (where) => `${where}, ${RUNS} runs per size`, run));
