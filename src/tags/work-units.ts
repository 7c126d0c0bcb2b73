import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { ControlUnit } from '../places/control-unit.entity.js';
import { Establishment } from '../places/establishment.entity.js';
import { controlUnitPolicy } from '../places/establishment.policy.js';
import { Checker } from '../shared/validation.js';
import { tagsPolicy, type WorkUnit } from './tags.policy.js';

/**
 * workUnit (tags.policy.ts) for the several units of one request, in two statements however
 * many: each must be visible (else 422 naming its path) and a unit the caller works at (403).
 * `refs` maps a path (`reservations[2].control_unit_id`) to an already well-formed uuid.
 */
export async function workUnits(em: EntityManager, actor: Actor, refs: { path: string; id: string }[]): Promise<Map<string, WorkUnit>> {
  const ids = [...new Set(refs.map((r) => r.id))];
  const scope = controlUnitPolicy.scope(actor);
  const rows = await em.execute<Record<string, unknown>[]>(
    `select cu.* from control_unit cu where cu.id in (select value::uuid from jsonb_array_elements_text(?::jsonb)) and ${scope.sql}`,
    [JSON.stringify(ids), ...scope.params],
  );
  const units = new Map(rows.map((r) => [r.id as string, em.map(ControlUnit, r as never)]));
  const check = new Checker();
  for (const r of refs) if (!units.has(r.id)) check.add(r.path, 'no such control unit');
  check.throwIfAny();
  const establishments = await em.find(Establishment, { id: { $in: [...new Set([...units.values()].map((u) => u.establishment_id))] } });
  const byId = new Map(establishments.map((e) => [e.id, e]));
  const out = new Map<string, WorkUnit>();
  for (const unit of units.values()) {
    const establishment = byId.get(unit.establishment_id)!;
    tagsPolicy.canWork(actor, establishment);
    out.set(unit.id, { unit, establishment });
  }
  return out;
}
