import { geoPointOf } from '../places/establishment.rules.js';
import { eudrPointProblem } from './eudr-point.rules.js';
import type { EudrAnimalRef, EudrHoldingRow } from './eudr.reader.js';

export const EUDR_REASONS = ['NO_POINT', 'INVALID_POINT', 'NO_CAR', 'NON_COMPLIANT', 'UNKNOWN_ORIGIN'] as const;
export type EudrReasonCode = (typeof EUDR_REASONS)[number];

/** Why one establishment keeps the lot from a statement. */
export interface EudrReason {
  establishment_id: string;
  str_establishment_name: string;
  str_reason: EudrReasonCode;
  str_detail: string;
  /** The lot's animals there (for UNKNOWN_ORIGIN, those whose earlier holdings are unknown). */
  int_animals: number;
  /** For UNKNOWN_ORIGIN, those animals by id and tag code, so the operator knows which ear to look at; null for reasons about the establishment itself. */
  animals: EudrAnimalRef[] | null;
}

/** How many tag codes the detail text names before "and N more" (the list in `animals` is whole). */
const CODES_IN_DETAIL = 10;

function codesText(animals: readonly EudrAnimalRef[]): string {
  const named = animals.slice(0, CODES_IN_DETAIL).map((a) => a.str_tag_code ?? `animal ${a.id}`);
  return named.join(', ') + (animals.length > named.length ? ` and ${animals.length - named.length} more` : '');
}

export interface EudrVerdict {
  str_status: 'READY' | 'NOT_READY';
  int_animals: number;
  int_establishments: number;
  reasons: EudrReason[];
}

/**
 * READY only when every establishment has a valid point and a CAR and none is NON_COMPLIANT, and no
 * animal's earlier holdings are unknown; otherwise each reason, per establishment (issue 22).
 */
export function verdictOf(rows: readonly EudrHoldingRow[]): EudrVerdict {
  const reasons: EudrReason[] = [];
  for (const r of rows) {
    const add = (str_reason: EudrReasonCode, str_detail: string, animals: EudrAnimalRef[] | null = null) =>
      reasons.push({ establishment_id: r.id, str_establishment_name: r.str_name, str_reason, str_detail, int_animals: animals?.length ?? r.int_animals, animals });
    const point = geoPointOf(r);
    if (!point) add('NO_POINT', 'the establishment has no geo_location');
    else {
      const problem = eudrPointProblem(point.coordinates);
      if (problem) add('INVALID_POINT', `its geo_location ${problem}`);
    }
    if (!r.str_car) add('NO_CAR', 'the establishment has no CAR (str_car)');
    if (r.str_socioenvironmental_status === 'NON_COMPLIANT') add('NON_COMPLIANT', 'the establishment is NON_COMPLIANT (str_socioenvironmental_status)');
    if (r.int_unknown_origin > 0) {
      add('UNKNOWN_ORIGIN', `animals arrived here from outside the record (an unknown code read on arrival, an external tag): their earlier holdings are unknown; tags ${codesText(r.unknown_origin_animals)}`, r.unknown_origin_animals);
    }
  }
  return { str_status: reasons.length ? 'NOT_READY' : 'READY', int_animals: rows[0]?.int_lot_animals ?? 0, int_establishments: rows.length, reasons };
}
