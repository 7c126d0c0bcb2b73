import { read, type Include, type Source } from '../db/reader.js';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { Read, Scope } from '../shared/scoped-query.js';
import type { AnimalsEgress } from './animals-egress.entity.js';
import { animalsEgressSource } from './animals-egress.reader.js';
import type { AnimalsIngress } from './animals-ingress.entity.js';
import { animalsIngressSource } from './animals-ingress.reader.js';

/** SQL condition on alias "e": the establishment lies in the federative unit `uf` (its county's, kept on the row: Migration0057). */
export const establishmentInUf = (uf: string): Scope => ({ sql: 'e.holder_federative_unit = ?', params: [uf] });

/** The latest record matching `which`, in the caller's UF; 404 otherwise. */
async function latest<R extends object>(db: Db, actor: Actor, source: Source, which: Scope, inUf: Scope, noun: string, include: Include): Promise<Read<R>> {
  const where = { sql: `${which.sql} and ${inUf.sql}`, params: [...which.params, ...inUf.params] };
  const { rows, related } = await read<R>(db, actor, source, { where, orderBy: (a) => `${a}.ts_created_at desc, ${a}.id desc`, limit: 1, include });
  if (!rows[0]) throw DomainError.notFound(noun);
  return { row: rows[0], related };
}

/** By the record's uuid, or by the state's id_gta of the GTA it moved under. */
const byIdOrGta = (alias: string, id: string, gtaOf: string): Scope =>
  isUuid(id)
    ? { sql: `(${alias}.id = ? or ${gtaOf})`, params: [id.toLowerCase(), id] }
    : { sql: gtaOf, params: [id] };

/** saida_animais: an egress whose GTA, origin or destination lies in the caller's UF. */
export function egressForState(db: Db, actor: Actor, uf: string, id: string, include: Include): Promise<Read<AnimalsEgress>> {
  const which = byIdOrGta('ae', id, 'ae.gta_id in (select sg.id from gta sg where sg.str_external_id = ?)');
  // Each side's state is on the row (Migration0049EgressHolders).
  const inUf = { sql: '(exists (select 1 from gta ug where ug.id = ae.gta_id and ug.str_federative_unit = ?) or ae.from_holder_federative_unit = ? or ae.to_holder_federative_unit = ?)', params: [uf, uf, uf] };
  return latest(db, actor, animalsEgressSource, which, inUf, 'animals egress', include);
}

/** entrada_animais: an ingress whose unit or one of whose GTAs lies in the caller's UF. */
export function ingressForState(db: Db, actor: Actor, uf: string, id: string, include: Include): Promise<Read<AnimalsIngress>> {
  const which = byIdOrGta('ai', id, 'exists (select 1 from animals_ingress_gta sig join gta sg on sg.id = sig.gta_id where sig.animals_ingress_id = ai.id and sg.str_external_id = ?)');
  // The destination unit's state is on the row (Migration0036ScopeHolders).
  const inUf = { sql: '(ai.holder_federative_unit = ? or exists (select 1 from animals_ingress_gta uig join gta ug on ug.id = uig.gta_id where uig.animals_ingress_id = ai.id and ug.str_federative_unit = ?))', params: [uf, uf] };
  return latest(db, actor, animalsIngressSource, which, inUf, 'animals ingress', include);
}
