import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const ids = { id: { variable: 'id', uuid: true }, read_id: { variable: 'read_id', uuid: true } };
const ERRORS = [400, 403, 404, 422];

/** Animals egress and ingress (DOMAIN.md, "Animal movements"): the standard group, reads in batches, finish and cancel. */
const movementRoutesUnder = (base: string): Route[] => [
  ...resourceRoutes({
    path: `${base}/animals-egress`,
    tag: 'AnimalsEgress',
    fields: { list: 'animalsEgresses', read: 'animalsEgress', create: 'createAnimalsEgress', update: 'updateAnimalsEgress' },
    noun: ['animals egress', 'animals egresses'],
    summaries: {
      index: 'Egresses from or to the units the caller sees (Animals Egress Partial Data)',
      search: 'Search egresses (record fields, animal_id; str_query: label, description, plate)',
      create: 'Open an egress at a unit the caller works at (destination, GTA, plate, label; tags: a first batch of reads, each by tag_id, str_tag_code or str_rod_code, with ts_egress_at and geo_egress when reading is on)',
      update: 'Destination, GTA, plate, label, description while OPEN',
    },
  }),
  { method: 'POST', path: `${base}/animals-egress/:id/tags`, auth: true, status: 200, params: { id: ids.id }, body: 'input', operation: 'AnimalsEgressAddTags', pick: 'addAnimalsEgressTags', tag: 'AnimalsEgress', errors: ERRORS, summary: 'A batch of reads ({tags: [...]}, at most 1,000) while OPEN; a retried read (same id, or the same animal) changes nothing' },
  { method: 'DELETE', path: `${base}/animals-egress/:id/tags/:read_id`, auth: true, status: 200, params: ids, operation: 'AnimalsEgressRemoveTag', pick: 'removeAnimalsEgressTag', tag: 'AnimalsEgress', errors: ERRORS, summary: 'Drop a read while OPEN; answers the egress' },
  actionRoute(`${base}/animals-egress`, 'finish', { operation: 'AnimalsEgressFinish', pick: 'finishAnimalsEgress', tag: 'AnimalsEgress', errors: ERRORS, summary: 'OPEN → FINISHED under the GTA: animals IN_TRANSIT, GTA IN_USE; 422 RULE_VIOLATED naming the rule and the animals' }),
  actionRoute(`${base}/animals-egress`, 'cancel', { operation: 'AnimalsEgressCancel', pick: 'cancelAnimalsEgress', tag: 'AnimalsEgress', errors: ERRORS, summary: 'OPEN or FINISHED → CANCELLED: animals back ACTIVE at the origin' }),
  ...resourceRoutes({
    path: `${base}/animals-ingress`,
    tag: 'AnimalsIngress',
    fields: { list: 'animalsIngresses', read: 'animalsIngress', create: 'createAnimalsIngress' },
    noun: ['animals ingress', 'animals ingresses'],
    summaries: {
      index: 'Ingresses at the units the caller sees',
      search: 'Search ingresses (record fields, gta_id, animal_id; str_query: label, description)',
      create: 'Open an ingress at a unit the caller works at (or is invited to receive at) under one or more GTAs (gtas: [{gta_id, str_license_plate}]); tags: a first batch of reads',
    },
  }),
  { method: 'POST', path: `${base}/animals-ingress/:id/tags`, auth: true, status: 200, params: { id: ids.id }, body: 'input', operation: 'AnimalsIngressAddTags', pick: 'addAnimalsIngressTags', tag: 'AnimalsIngress', errors: ERRORS, summary: 'A batch of reads ({tags: [...]}, at most 1,000; reading off: int_animal_count) while OPEN; unknown codes are kept' },
  { method: 'DELETE', path: `${base}/animals-ingress/:id/tags/:read_id`, auth: true, status: 200, params: ids, operation: 'AnimalsIngressRemoveTag', pick: 'removeAnimalsIngressTag', tag: 'AnimalsIngress', errors: ERRORS, summary: 'Drop a read while OPEN; answers the ingress' },
  actionRoute(`${base}/animals-ingress`, 'finish', { operation: 'AnimalsIngressFinish', pick: 'finishAnimalsIngress', tag: 'AnimalsIngress', errors: ERRORS, summary: 'Reconcile: RECEIVED or RECEIVED_WITH_DIVERGENCE; MISSING_ON_ARRIVAL, UNEXPECTED_ANIMAL, COUNT_DIVERGENCE occurrences; unknown codes become external tags' }),
  actionRoute(`${base}/animals-ingress`, 'cancel', { operation: 'AnimalsIngressCancel', pick: 'cancelAnimalsIngress', tag: 'AnimalsIngress', errors: ERRORS, summary: 'OPEN → CANCELLED' }),
];

export const animalMovementRoutes: Route[] = [...movementRoutesUnder('/api'), ...movementRoutesUnder('/api/v1')];
