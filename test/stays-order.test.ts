import { mustPost, useApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { animalBody, identify } from './helpers/identify.js';
import { egressRead, holding, ingressRead, issueGta, type Holding } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { stockTags } from './helpers/tags.js';

/**
 * An animal's stays never nest (docs/decisions/movements.md, "Stays in path order"): reads
 * stamped by a device whose clock is far behind open a stay no earlier than the previous one
 * began and close it no earlier than the previous one ended, so the path's order by end (the
 * trace's, Migration0067) is its order by start.
 */

const app = useApp();
const county = useCounty(app);
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

async function dispatch(from: Holding, to: Holding, code: string, egressAt: string) {
  const gta = await issueGta(app, from.owner.access, from.unit, to.unit, 1);
  const egress = (await mustPost(app, '/api/animals-egress', from.owner.access, { from_control_unit_id: from.unit.unitId, gta_id: gta.id, tags: [egressRead(code, { ts_egress_at: egressAt })] })).body.data;
  await mustPost(app, `/api/animals-egress/${egress.id}/finish`, from.owner.access, {}, 200);
  return gta;
}

test('reads stamped before the previous stay began or ended: the stays begin and end in path order, never one inside another', async () => {
  const farm = await holding(app, county, 'FARM');
  const feedlot = await holding(app, county, 'FEEDLOT');
  const abattoir = await holding(app, county, 'SLAUGHTERHOUSE');
  const { codes } = await stockTags(app, farm.unit.unitId, 1);
  const code = codes[0]!;
  const [identified, left, readAtFeedlot, leftFeedlot] = [at(300), at(200), at(400), at(250)];
  await identify(app, farm.owner.access, farm.unit, [animalBody(code, { ts_identified_at: identified })]);
  const gta = await dispatch(farm, feedlot, code, left);
  // The feedlot's reader is far behind: its arrival read lies before the animal was identified at the farm ...
  const ingress = (await mustPost(app, '/api/animals-ingress', feedlot.owner.access, { to_control_unit_id: feedlot.unit.unitId, gtas: [{ gta_id: gta.id }], tags: [ingressRead(code, { ts_ingress_at: readAtFeedlot })] })).body.data;
  await mustPost(app, `/api/animals-ingress/${ingress.id}/finish`, feedlot.owner.access, {}, 200);
  // ... and its egress read before the animal left the farm.
  await dispatch(feedlot, abattoir, code, leftFeedlot);

  const stays = await rows<{ control_unit_id: string; ts_from: Date; ts_to: Date | null }>(
    app,
    'select s.control_unit_id, s.ts_from, s.ts_to from animal_stay s join tag t on t.animal_id = s.animal_id where t.str_code = ? order by s.ts_from, s.id',
    [code],
  );
  const iso = (d: Date | null) => d && new Date(d).toISOString();
  // The feedlot's stay begins when the farm's began (not at its read) and ends when the farm's ended (not at its read).
  expect(stays.map((s) => [s.control_unit_id, iso(s.ts_from), iso(s.ts_to)])).toEqual([
    [farm.unit.unitId, identified, left],
    [feedlot.unit.unitId, identified, left],
  ]);
});
