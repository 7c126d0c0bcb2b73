import type { Scope } from '../shared/scoped-query.js';

/** SQL condition on alias "e": the establishment lies in the federative unit `uf`. */
export const establishmentInUf = (uf: string): Scope => ({ sql: 'exists (select 1 from county pc where pc.id = e.county_id and pc.str_federative_unit = ?)', params: [uf] });
