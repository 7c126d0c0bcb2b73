import { randomUUID } from 'node:crypto';
import { mustPost, type TestApp } from './app.js';
import { member } from './factories.js';
import { carOf, unitCode, type TestCounty } from './places.js';
import type { TestUnit } from './tags.js';

export interface Holding {
  owner: Awaited<ReturnType<typeof member>>;
  unit: TestUnit;
}

/** An owner of a fresh organization with one establishment of `type` (a FARM has a CAR) and one unit, written straight to the database. */
export async function holding(app: TestApp, county: TestCounty, type = 'FARM', over: { socio?: string; car?: boolean; reading?: boolean; status?: string } = {}): Promise<Holding> {
  const owner = await member(app);
  const establishmentId = randomUUID();
  const unitId = randomUUID();
  const code = unitCode();
  const em = app.service.orm.em.fork();
  await em.execute(
    `insert into establishment (id, organization_id, county_id, str_name, str_type, str_car, str_socioenvironmental_status, bl_move_with_tag_reading, str_status) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [establishmentId, owner.org.id, county.id, `${type} ${code}`, type, over.car === false ? null : carOf(county), over.socio ?? 'COMPLIANT', over.reading ?? true, over.status ?? 'ACTIVE'],
  );
  await em.execute(`insert into control_unit (id, establishment_id, str_code, str_name, str_type) values (?, ?, ?, 'Curral', ?)`, [unitId, establishmentId, code, type === 'SLAUGHTERHOUSE' ? 'SLAUGHTER' : 'PRODUCTION']);
  return { owner, unit: { establishmentId, unitId, code } };
}

let gtaNumber = Math.floor(Math.random() * 1e8);

/** A GTA issued over HTTP by the origin's owner. */
export async function issueGta(app: TestApp, token: string, from: TestUnit, to: TestUnit, quantity: number, over: Record<string, unknown> = {}): Promise<{ id: string; str_code: string; str_status: string }> {
  const body = { gta: { str_code: String(++gtaNumber), int_animal_quantity: quantity, str_purpose: 'FATTENING', from_control_unit_id: from.unitId, to_control_unit_id: to.unitId, ts_valid_until: new Date(Date.now() + 7 * 86_400_000).toISOString(), ...over } };
  const res = await app.call('POST', '/api/gtas', { token, body });
  if (res.status !== 201) throw new Error(`GTA failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const GEO = { type: 'Point', coordinates: [-47.9, -15.8] };

/** A read at the chute by tag code, with its time and place. */
export const egressRead = (code: string, over: Record<string, unknown> = {}) => ({ str_tag_code: code, ts_egress_at: new Date().toISOString(), geo_egress: GEO, ...over });
export const ingressRead = (code: string, over: Record<string, unknown> = {}) => ({ str_tag_code: code, ts_ingress_at: new Date().toISOString(), geo_ingress: GEO, ...over });

/**
 * The animals of `codes` from one holding to the other over HTTP: a GTA, the egress read and
 * finished, the ingress read and finished. The finish's answer is returned for the caller to check.
 */
export async function moveByGta(app: TestApp, from: Holding, to: Holding, codes: string[]) {
  const gta = await issueGta(app, from.owner.access, from.unit, to.unit, codes.length);
  const egress = (await mustPost(app, '/api/animals-egress', from.owner.access, { from_control_unit_id: from.unit.unitId, to_control_unit_id: to.unit.unitId, gta_id: gta.id })).body.data;
  await mustPost(app, `/api/animals-egress/${egress.id}/tags`, from.owner.access, { tags: codes.map((c) => egressRead(c)) }, 200);
  await mustPost(app, `/api/animals-egress/${egress.id}/finish`, from.owner.access, {}, 200);
  const ingress = (await mustPost(app, '/api/animals-ingress', to.owner.access, { to_control_unit_id: to.unit.unitId, gtas: [{ gta_id: gta.id }], tags: codes.map((c) => ingressRead(c)) })).body.data;
  const finished = await mustPost(app, `/api/animals-ingress/${ingress.id}/finish`, to.owner.access, {}, 200);
  return { gta, egress, ingress, finished };
}
