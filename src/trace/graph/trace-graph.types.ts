/**
 * The trace's stays as the in-memory walk reads them (docs/decisions/trace.md, "The walk in
 * memory"): one row per `animal_stay`, times in epoch microseconds (timestamptz's resolution; a
 * JavaScript Date has milliseconds only), with the vehicle the stay was left on already resolved
 * (Migration0067's VEHICLE: the travel of the egress that closed it, its embark not released, or
 * the egress itself; none unless the egress is FINISHED or RECEIVED).
 */
export interface GraphStay {
  /** `animal_stay.id` (a bigint from a sequence; below 2^53). */
  id: number;
  animal: string;
  unit: string;
  establishment: string;
  /** `ts_from`, epoch microseconds. */
  from: number;
  /** `ts_to`, epoch microseconds; null while the animal is still there. */
  to: number | null;
  /** The vehicle (a travel's or an egress's id) the animal rode after this stay; null when none. */
  vehicle: string | null;
  /** The egress that closed the stay, whatever its state (`animal_stay.animals_egress_id`): its GTA is the leg's. */
  egress: string | null;
}
