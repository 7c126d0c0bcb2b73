export const OCCURRENCE_TYPES = ['MISSING_ON_ARRIVAL', 'UNEXPECTED_ANIMAL', 'COUNT_DIVERGENCE', 'TAG_LOST', 'ANIMAL_DEATH', 'THEFT', 'SOCIOENVIRONMENTAL_ALERT', 'TRANSIT_TIME_EXCEEDED', 'OTHER'] as const;
export type OccurrenceType = (typeof OCCURRENCE_TYPES)[number];
export const OCCURRENCE_STATUSES = ['OPEN', 'RESOLVED', 'DISMISSED'] as const;
export type OccurrenceStatus = (typeof OCCURRENCE_STATUSES)[number];

/** What people report; the other types are raised by the movement rules alone, so none can be forged. */
export const REPORTED_TYPES: readonly OccurrenceType[] = ['TAG_LOST', 'ANIMAL_DEATH', 'THEFT', 'OTHER'];

/** Types about one animal: the body must name it. */
export const ANIMAL_TYPES: readonly OccurrenceType[] = ['ANIMAL_DEATH', 'THEFT'];

/** An occurrence raised by a rule inside the transaction that found it. */
export interface RaisedOccurrence {
  str_type: OccurrenceType;
  control_unit_id: string;
  animal_id?: string | null;
  tag_id?: string | null;
  animals_egress_id?: string | null;
  animals_ingress_id?: string | null;
  gta_id?: string | null;
  travel_id?: string | null;
  str_description: string;
  ts_occurred_at?: Date;
}
