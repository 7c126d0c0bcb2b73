import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const ids = { id: { variable: 'id', uuid: true }, read_id: { variable: 'read_id', uuid: true } };
const ERRORS = [400, 403, 404, 422];

interface MovementActions {
  tag: 'AnimalsEgress' | 'AnimalsIngress';
  /** GraphQL fields: add reads, remove a read, finish, cancel. */
  fields: [add: string, remove: string, finish: string, cancel: string];
  summaries: [add: string, finish: string, cancel: string];
}

/** A movement's reads in batches, the removal of one, finish and cancel: the same four actions on both sides. */
const actionsOf = (path: string, { tag, fields: [add, remove, finish, cancel], summaries }: MovementActions): Route[] => [
  { method: 'POST', path: `${path}/:id/tags`, auth: true, status: 200, params: { id: ids.id }, body: 'input', operation: `${tag}AddTags`, pick: add, tag, errors: ERRORS, summary: summaries[0] },
  { method: 'DELETE', path: `${path}/:id/tags/:read_id`, auth: true, status: 200, params: ids, operation: `${tag}RemoveTag`, pick: remove, tag, errors: ERRORS, summary: 'Drop a read while OPEN; answers the record' },
  actionRoute(path, 'finish', { operation: `${tag}Finish`, pick: finish, tag, errors: ERRORS, summary: summaries[1] }),
  actionRoute(path, 'cancel', { operation: `${tag}Cancel`, pick: cancel, tag, errors: ERRORS, summary: summaries[2] }),
];

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
  ...actionsOf(`${base}/animals-egress`, {
    tag: 'AnimalsEgress',
    fields: ['addAnimalsEgressTags', 'removeAnimalsEgressTag', 'finishAnimalsEgress', 'cancelAnimalsEgress'],
    summaries: [
      'A batch of reads ({tags: [...]}, at most 1,000) while OPEN; a retried read (same id, or the same animal) changes nothing',
      'OPEN → FINISHED under the GTA: animals IN_TRANSIT, GTA IN_USE; 422 RULE_VIOLATED naming the rule and the animals',
      'OPEN or FINISHED → CANCELLED: animals back ACTIVE at the origin',
    ],
  }),
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
  ...actionsOf(`${base}/animals-ingress`, {
    tag: 'AnimalsIngress',
    fields: ['addAnimalsIngressTags', 'removeAnimalsIngressTag', 'finishAnimalsIngress', 'cancelAnimalsIngress'],
    summaries: [
      'A batch of reads ({tags: [...]}, at most 1,000; reading off: int_animal_count) while OPEN; unknown codes are kept',
      'Reconcile: RECEIVED or RECEIVED_WITH_DIVERGENCE; MISSING_ON_ARRIVAL, UNEXPECTED_ANIMAL, COUNT_DIVERGENCE occurrences; unknown codes become external tags',
      'OPEN → CANCELLED',
    ],
  }),
];

export const animalMovementRoutes: Route[] = [...movementRoutesUnder('/api'), ...movementRoutesUnder('/api/v1')];
