import type { TestApp } from './app.js';
import { ownerWithUnit, stockTags, type TestUnit } from './tags.js';

/** An owner of a fresh organization with one control unit holding `n` AVAILABLE tags. */
export async function fieldWork(app: TestApp, n = 10) {
  const { owner, unit } = await ownerWithUnit(app);
  const stock = await stockTags(app, unit.unitId, n);
  return { owner, unit, stock };
}

/** One animal of an identification body, tagged by code. */
export const animalBody = (code: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  str_tag_code: code,
  str_species: 'BOVINE',
  str_gender: 'FEMALE',
  ...over,
});

export async function identify(app: TestApp, token: string, unit: TestUnit, animals: Record<string, unknown>[], over: Record<string, unknown> = {}) {
  const res = await app.call('POST', '/api/tags-identifications', { token, body: { to_control_unit_id: unit.unitId, animals, ...over } });
  if (res.status !== 201) throw new Error(`identification failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}
