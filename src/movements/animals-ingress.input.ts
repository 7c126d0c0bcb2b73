import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { isUuid, newId } from '../shared/ids.js';
import { Checker } from '../shared/validation.js';
import type { ReadInput } from './animal-reads.js';
import { gtaPolicy } from './gta.policy.js';
import { effectiveStatus } from './gta.rules.js';
import { ruleViolated } from './movement.rules.js';

/** Animals Ingress Create Gtas: a GTA the truck carries, with its plate. */
export interface IngressGtaInput {
  id?: string | null;
  gta_id?: string | null;
  str_license_plate?: string | null;
}

/** Animals Ingress create body. */
export interface AnimalsIngressInput {
  id?: string | null;
  to_control_unit_id?: string | null;
  operator_user_id?: string | null;
  bl_move_with_tag_reading?: boolean | null;
  /** Reading off: the animals counted off the truck. */
  int_animal_count?: number | null;
  str_description?: string | null;
  str_label?: string | null;
  gtas?: IngressGtaInput[] | null;
  tags?: ReadInput[] | null;
  ts_started_at?: Date | null;
  ts_unsafe_client_created_at?: Date | null;
}

export interface CheckedGta {
  id: string;
  gta_id: string;
  str_license_plate: string | null;
}

const MAX_GTAS = 50;

/** The body's ids and GTAs, every problem at once. */
export function checkIngressShape(input: AnimalsIngressInput): CheckedGta[] {
  const check = new Checker();
  for (const f of ['id', 'operator_user_id'] as const) if (input[f]) check.when(!isUuid(input[f]), f, 'must be a uuid');
  if (input.int_animal_count !== undefined && input.int_animal_count !== null) check.when(!Number.isInteger(input.int_animal_count) || input.int_animal_count < 0, 'int_animal_count', 'must be an integer of at least 0');
  const gtas: CheckedGta[] = [];
  const items = input.gtas;
  if (!items?.length) check.add('gtas', 'must list at least one GTA the animals arrive under');
  else if (items.length > MAX_GTAS) check.add('gtas', `at most ${MAX_GTAS} GTAs in one ingress`);
  else {
    const seen = new Map<string, number>();
    items.forEach((g, idx) => {
      if (!g?.gta_id) return void check.add(`gtas[${idx}].gta_id`, 'is required');
      if (!isUuid(g.gta_id)) return void check.add(`gtas[${idx}].gta_id`, 'must be a uuid');
      if (g.id && !isUuid(g.id)) return void check.add(`gtas[${idx}].id`, 'must be a uuid');
      const gtaId = g.gta_id.toLowerCase();
      if (seen.has(gtaId)) return void check.add(`gtas[${idx}].gta_id`, `repeats gtas[${seen.get(gtaId)}]`);
      seen.set(gtaId, idx);
      const plate = typeof g.str_license_plate === 'string' ? g.str_license_plate.trim().toUpperCase() || null : null;
      gtas.push({ id: g.id?.toLowerCase() ?? newId(), gta_id: gtaId, str_license_plate: plate });
    });
  }
  check.throwIfAny();
  return gtas;
}

/**
 * The GTAs an ingress arrives under, locked: each must be one the caller may name here (else "no
 * such GTA", as an unknown one) and be for this destination (or not name one yet); a CANCELLED or
 * already RECEIVED GTA brings no animals.
 */
export async function checkIngressGtas(tx: EntityManager, actor: Actor, unitId: string, gtas: CheckedGta[]): Promise<void> {
  const usable = gtaPolicy.usable(actor, 'to', unitId);
  const rows = await tx.execute<{ id: string; str_status: string; ts_valid_until: Date | null; to_control_unit_id: string | null }[]>(
    `select g.id, g.str_status, g.ts_valid_until, g.to_control_unit_id from gta g where g.id = any(array[?]::uuid[]) and ${usable.sql} order by g.id for update`,
    [gtas.map((g) => g.gta_id), ...usable.params],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const check = new Checker();
  gtas.forEach((g, idx) => {
    const row = byId.get(g.gta_id);
    if (!row) return void check.add(`gtas[${idx}].gta_id`, 'no such GTA');
    if (row.to_control_unit_id && row.to_control_unit_id !== unitId) check.add(`gtas[${idx}].gta_id`, 'the GTA is for another destination control unit');
  });
  check.throwIfAny();
  for (const g of gtas) {
    const status = effectiveStatus(byId.get(g.gta_id)!);
    if (status === 'CANCELLED' || status === 'RECEIVED') throw ruleViolated('GTA_NOT_USABLE', `a GTA ${status} brings no animals`, { gta_id: g.gta_id, str_status: status });
  }
  if (rows.length !== gtas.length) throw DomainError.field('gtas', 'no such GTA');
}
