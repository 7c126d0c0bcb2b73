import { randomUUID } from 'node:crypto';
import { mustPost, useApp, type Reply } from './helpers/app.js';
import { count, rows } from './helpers/db.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { freshCodeBlock, codeAt, stockAnimals } from './helpers/tags.js';

/**
 * Issue 10, "Scale and speed": the statements a movement request runs do not grow with the animals
 * it carries (the X-SQL-Statements counter, as test/read-statements.test.ts reads it), and reads
 * sent over a flaky connection (retried, some twice at once) are stored once each. Wall-clock
 * times are measured by bench/movements.ts, never asserted here.
 */

const app = useApp();
const county = useCounty(app);

function ok(res: Reply, status = 200): Reply {
  expect({ status: res.status, body: res.status === status ? undefined : res.body }).toEqual({ status, body: undefined });
  return res;
}

/** A farm with `n` animals, a feedlot, a GTA for them and an egress with every one read (in batches of at most 1,000). */
async function loadedEgress(n: number, to?: Holding) {
  const farm = await holding(app, county, 'FARM');
  const feedlot = to ?? (await holding(app, county, 'FEEDLOT'));
  const { codes, animalIds } = await stockAnimals(app, farm.unit.unitId, n);
  const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, n);
  const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: feedlot.unit.unitId, gta_id: gta.id })).body.data;
  for (let i = 0; i < n; i += 1000) {
    ok(await app.call('POST', `/api/animals-egress/${egress.id}/tags`, { token: farm.owner.access, body: { tags: codes.slice(i, i + 1000).map((c) => egressRead(c)) } }));
  }
  return { farm, feedlot, codes, animalIds, gta, egress };
}

/** One feedlot and, per size, a loaded egress to it (loadedEgress) finished: the legs an ingress receives. */
async function dispatched(sizes: number[]) {
  const feedlot = await holding(app, county, 'FEEDLOT');
  const legs = [];
  for (const size of sizes) {
    const leg = await loadedEgress(size, feedlot);
    ok(await app.call('POST', `/api/animals-egress/${leg.egress.id}/finish`, { token: leg.farm.owner.access }));
    legs.push(leg);
  }
  return { feedlot, legs };
}

describe('statements per movement request do not grow with the animals', () => {
  test('finish of an egress of 5 and of 200 read animals', async () => {
    const finish = async (n: number) => {
      const { farm, egress, animalIds } = await loadedEgress(n);
      const res = ok(await app.call('POST', `/api/animals-egress/${egress.id}/finish`, { token: farm.owner.access }));
      expect(res.body.data).toMatchObject({ str_status: 'FINISHED', int_tag_count: n });
      expect(await count(app, `animal where id = any(array[?]::uuid[]) and str_status = 'IN_TRANSIT'`, [animalIds])).toBe(n);
      expect(await count(app, `animal_stay where animal_id = any(array[?]::uuid[]) and ts_to is null`, [animalIds])).toBe(0);
      // One event, the egress's, listing the n animals (issue 20).
      expect(await count(app, `event where record_id = any(array[?]::uuid[])`, [animalIds])).toBe(0);
      expect(await count(app, `event_subject s join event e on e.seq = s.event_seq where e.record_id = ? and e.str_type = 'ANIMALS_EGRESS_FINISHED' and s.record_id = any(array[?]::uuid[])`, [egress.id, animalIds])).toBe(n);
      return res.sql;
    };
    const [small, large] = [await finish(5), await finish(200)];
    expect(small).toBeGreaterThan(0);
    expect(large).toBe(small);
  });

  test('an ingress finish reconciling 5 animals under 1 GTA and 200 under 3: some missing, some unexpected, one unknown code', async () => {
    /** `sizes[g]` animals dispatched under GTA g; read all but `missing` of each, plus `unexpected` animals of another farm and one unknown code. */
    const reconcile = async (sizes: number[], missing: number, unexpected: number) => {
      const { feedlot, legs } = await dispatched(sizes);
      const gtas = sizes.length;
      const stranger = await holding(app, county, 'FARM');
      const strays = await stockAnimals(app, stranger.unit.unitId, unexpected);
      const unknown = codeAt(freshCodeBlock(), 7);
      const read = [...legs.flatMap((l) => l.codes.slice(missing)), ...strays.codes, unknown];
      const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: legs.map((l) => ({ gta_id: l.gta.id })), tags: read.map((c) => ingressRead(c)) })).body.data;
      const res = ok(await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: feedlot.owner.access }));
      const received = sizes.reduce((sum, n) => sum + n, 0) - gtas * missing;
      expect(res.body.data).toMatchObject({ str_status: 'RECEIVED_WITH_DIVERGENCE', int_received_count: received });
      const raised = await rows<{ str_type: string; n: number }>(app, 'select str_type, count(*)::int as n from occurrence where animals_ingress_id = ? group by 1 order by 1', [ingress.id]);
      expect(raised).toEqual([
        { str_type: 'MISSING_ON_ARRIVAL', n: gtas * missing },
        { str_type: 'UNEXPECTED_ANIMAL', n: unexpected + 1 },
      ]);
      const arrived = legs.flatMap((l) => l.animalIds.slice(missing));
      expect(await count(app, `animal where id = any(array[?]::uuid[]) and str_status = 'ACTIVE' and last_control_unit_id = ?`, [arrived, feedlot.unit.unitId])).toBe(received);
      expect(await count(app, `animal_stay where animal_id = any(array[?]::uuid[]) and ts_to is null and control_unit_id = ?`, [arrived, feedlot.unit.unitId])).toBe(received);
      expect(await count(app, `animal where id = any(array[?]::uuid[]) and str_status = 'IN_TRANSIT'`, [legs.flatMap((l) => l.animalIds.slice(0, missing))])).toBe(gtas * missing);
      expect(await count(app, `tag_with_place where str_code = ? and bl_external_tag and last_control_unit_id = ?`, [unknown, feedlot.unit.unitId])).toBe(1);
      expect(await count(app, `gta where id = any(array[?]::uuid[]) and str_status = 'IN_USE'`, [legs.map((l) => l.gta.id)])).toBe(gtas);
      return res.sql;
    };
    const [small, large] = [await reconcile([5], 2, 2), await reconcile([67, 67, 66], 3, 10)];
    expect(small).toBeGreaterThan(0);
    expect(large).toBe(small);
  });

  test('an ingress finish that receives every GTA whole: 5 animals under 1 GTA and 200 under 3', async () => {
    const whole = async (sizes: number[]) => {
      const { feedlot, legs } = await dispatched(sizes);
      const gtas = sizes.length;
      const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: legs.map((l) => ({ gta_id: l.gta.id })), tags: legs.flatMap((l) => l.codes).map((c) => ingressRead(c)) })).body.data;
      const res = ok(await app.call('POST', `/api/animals-ingress/${ingress.id}/finish`, { token: feedlot.owner.access }));
      expect(res.body.data).toMatchObject({ str_status: 'RECEIVED', int_received_count: sizes.reduce((sum, n) => sum + n, 0) });
      expect(await count(app, `gta where id = any(array[?]::uuid[]) and str_status = 'RECEIVED'`, [legs.map((l) => l.gta.id)])).toBe(gtas);
      expect(await count(app, `animals_egress where id = any(array[?]::uuid[]) and str_status = 'RECEIVED'`, [legs.map((l) => l.egress.id)])).toBe(gtas);
      return res.sql;
    };
    const [small, large] = [await whole([5]), await whole([67, 67, 66])];
    expect(large).toBe(small);
  });

  test('a batch of 10 and of 1,000 reads added to an egress and to an ingress', async () => {
    const farm = await holding(app, county, 'FARM');
    const feedlot = await holding(app, county, 'FEEDLOT');
    const { codes } = await stockAnimals(app, farm.unit.unitId, 1010);
    const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId })).body.data;
    const addEgress = async (batch: string[]) => ok(await app.call('POST', `/api/animals-egress/${egress.id}/tags`, { token: farm.owner.access, body: { tags: batch.map((c) => egressRead(c, { id: randomUUID() })) } }));
    const e10 = await addEgress(codes.slice(0, 10));
    const e1000 = await addEgress(codes.slice(10));
    expect(e1000.body.data.int_tag_count).toBe(1010);
    expect(e1000.sql).toBe(e10.sql);

    // An ingress's reads: animals known here (the farm's, unexpected) and codes nobody knows.
    const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 10);
    const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: [{ gta_id: gta.id }] })).body.data;
    const unknown = freshCodeBlock();
    const mixed = (known: string[], n: number) => [...known, ...Array.from({ length: n }, (_, i) => codeAt(unknown, known.length * 1000 + i))].map((c) => ingressRead(c, { id: randomUUID() }));
    const i10 = ok(await app.call('POST', `/api/animals-ingress/${ingress.id}/tags`, { token: feedlot.owner.access, body: { tags: mixed(codes.slice(0, 5), 5) } }));
    const i1000 = ok(await app.call('POST', `/api/animals-ingress/${ingress.id}/tags`, { token: feedlot.owner.access, body: { tags: mixed(codes.slice(5, 505), 500) } }));
    expect(i1000.body.data.tags).toHaveLength(1010);
    expect(i1000.sql).toBe(i10.sql);
  });
});

describe('reads over a flaky connection', () => {
  /**
   * Through GraphQL asking only for the count: the REST answer is the whole record, every read
   * so far included (interface.md: Animals Egress requires `tags`), so 100 answers of a 5,000-read
   * load would carry 250,000 reads back. The core, the transaction and the deduplication are the
   * same as behind POST /api/animals-egress/:id/tags (the journey test retries over REST).
   */
  const ADD = 'mutation($id: UUID!, $input: AnimalsMovementTagsInput!) { addAnimalsEgressTags(id: $id, input: $input) { int_tag_count } }';

  test('50 batches of 100 reads, each sent twice (some at once, some after a dropped first try), store 5,000 reads: no duplicate, no 5xx', async () => {
    const farm = await holding(app, county, 'FARM');
    const { codes } = await stockAnimals(app, farm.unit.unitId, 5000);
    const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId })).body.data;
    const batches = Array.from({ length: 50 }, (_, b) => ({ tags: codes.slice(b * 100, b * 100 + 100).map((c) => ({ ...egressRead(c), id: randomUUID() })) }));
    const problems: unknown[] = [];
    const send = async (input: unknown) => {
      // A kept-alive connection the server closed after a dropped request fails before it is sent: the reader retries, as a device does.
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await app.graphql(ADD, { id: egress.id, input }, farm.owner.access);
          if (res.status !== 200 || res.body.errors) problems.push({ status: res.status, errors: res.body.errors });
          return;
        } catch (err) {
          if (attempt === 3) throw err;
        }
      }
    };
    /** The connection drops right after the request left: the server may or may not have stored it. */
    const dropped = async (input: unknown) => {
      const body = JSON.stringify({ query: ADD, variables: { id: egress.id, input } });
      await fetch(`${app.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${farm.owner.access}`, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5) }).catch(() => undefined);
    };
    for (const [b, batch] of batches.entries()) {
      if (b % 3 === 0) await Promise.all([send(batch), send(batch)]);
      else if (b % 3 === 1) {
        await dropped(batch);
        await send(batch);
      } else {
        await send(batch);
        await send(batch);
      }
    }
    // A batch replayed late, next to two batches sent again as one (the reader resent a part with the next one).
    await Promise.all([send(batches[7]), send({ tags: [...batches[48]!.tags, ...batches[49]!.tags] })]);

    expect(problems).toEqual([]);
    expect(await count(app, 'animals_egress_tag where animals_egress_id = ?', [egress.id])).toBe(5000);
    expect(await count(app, 'animals_egress_tag where animals_egress_id = ? and id = any(array[?]::uuid[])', [egress.id, batches.flatMap((b) => b.tags.map((t) => t.id))])).toBe(5000);
    const record = ok(await app.call('GET', `/api/animals-egress/${egress.id}`, { token: farm.owner.access }));
    expect(record.body.data.int_tag_count).toBe(5000);
    expect(record.body.data.tags).toHaveLength(5000);
    // 5,000 animals stocked and 100 requests of 100 reads: past the usual minute on a loaded 2-core machine.
  }, 180_000);

  test('a batch of more than 1,000 reads is refused 422 naming tags', async () => {
    const farm = await holding(app, county, 'FARM');
    const { codes } = await stockAnimals(app, farm.unit.unitId, 1001);
    const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId })).body.data;
    const tags = codes.map((c) => egressRead(c));
    for (const [path, body] of [
      [`/api/animals-egress/${egress.id}/tags`, { tags }],
      ['/api/animals-egress', { from_control_unit_id: farm.unit.unitId, tags }],
    ] as const) {
      const res = await app.call('POST', path, { token: farm.owner.access, body });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.detail.fields)).toEqual(['tags']);
    }
    expect(await count(app, 'animals_egress_tag where animals_egress_id = ?', [egress.id])).toBe(0);
  });
});
