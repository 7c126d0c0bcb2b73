import fc from 'fast-check';
import { traceRunParts } from '../src/trace/trace.reader.js';
import { useApp } from './helpers/app.js';
import { login, makeUser, official } from './helpers/factories.js';
import type { Holding } from './helpers/movements.js';
import { csvOfPages, TRACE_CSV_HEADER, type TracedJson } from './helpers/trace-csv.js';
import { at, networkPlaces, travelNetwork } from './helpers/trace-network.js';

/**
 * A trace's CSV read in parts (src/trace/trace.reader.ts `traceRunParts`, src/db/copy.ts
 * `csvInParts`): here parts of about three animals, two COPYs at a time. Each part is cut at the
 * start of a group of equal moves and time (a group ranks its animals within itself), and the
 * parts in turn are the JSON pages in rank order, stay by stay.
 */
const app = useApp({ TRACE_CSV_PART_ANIMALS: '3', TRACE_CSV_PARALLEL: '2' });
let places: Holding[];
let vehicleId: string;
beforeAll(async () => {
  ({ places, vehicleId } = await networkPlaces(app));
});

async function pages(token: string, input: Record<string, unknown>): Promise<TracedJson[]> {
  const all: TracedJson[] = [];
  for (let page = 1; ; page++) {
    const res = await app.call('POST', `/api/trace?int_current_page=${page}&int_max_results=7`, { token, body: input });
    await app.service.core.trace.settled();
    expect(res.status).toBe(200);
    all.push(...res.body.data);
    if (page >= res.body.meta.int_total_pages) return all;
  }
}

describe('a trace CSV read in parts', () => {
  test('on random networks, for an administrator and an authority: cut at groups, the JSON pages in rank order', async () => {
    const admin = await login(app, await makeUser(app, { admin: true }));
    const [{ county_id } = { county_id: '' }] = await app.service.orm.em.fork().execute<{ county_id: string }[]>('select county_id from establishment where id = ?', [places[0]!.unit.establishmentId]);
    const callers = [admin.access, (await official(app, county_id)).access];
    let split = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constantFrom('FORWARD', 'BACKWARD', 'BOTH'), fc.integer({ min: 0, max: 1 }), async (seed, direction, who) => {
        const { units } = await travelNetwork(app, places, vehicleId, seed);
        const from = (seed % 97) + 10;
        const input = { control_unit_id: units[seed % units.length], ts_from: at(from), ts_to: at(from + 30 + ((seed >> 8) % 60)), str_direction: direction };
        const json = await pages(callers[who]!, input);
        const res = await fetch(`${app.url}/api/trace`, { method: 'POST', headers: { authorization: `Bearer ${callers[who]}`, 'content-type': 'application/json', accept: 'text/csv' }, body: JSON.stringify(input) });
        expect(res.status).toBe(200);
        const lines = (await res.text()).slice(0, -2).split('\r\n');
        expect(lines[0]).toBe(TRACE_CSV_HEADER);
        expect(lines.slice(1)).toEqual(csvOfPages(json));
        // The parts of the answer the CSV read (the JSON's, reused): contiguous, each from a group's first rank.
        const [run] = await app.service.orm.em.fork().execute<{ id: string; int_total: number }[]>('select id, int_total from trace_run order by ts_created_at desc limit 1');
        const parts = await traceRunParts(app.service.db, { id: run!.id, total: run!.int_total }, 3);
        expect(parts[0]![0]).toBe(1);
        expect(parts[parts.length - 1]![1]).toBe(run!.int_total + 1);
        parts.slice(1).forEach(([lo], i) => expect(lo).toBe(parts[i]![1]));
        const starts = await app.service.db.rows<{ n: number }>({
          sql: 'select count(*)::int as n from trace_answer where run_id = ? and ord = any(?::int[]) and int_group_from = ord',
          params: [run!.id, parts.map(([lo]) => lo)],
        });
        expect(starts[0]!.n).toBe(run!.int_total ? parts.length : 0);
        if (parts.length > 1) split++;
      }),
      { numRuns: 12 },
    );
    // The networks' answers were cut: the parts were read, not only one.
    expect(split).toBeGreaterThan(3);
  });
});
