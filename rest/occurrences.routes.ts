import { actionRoute, resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const close = (name: 'resolve' | 'dismiss', summary: string): Route => ({
  ...actionRoute('/api/occurrences', name, { operation: `Occurrence${name === 'resolve' ? 'Resolve' : 'Dismiss'}`, pick: `${name}Occurrence`, summary, tag: 'Occurrence', errors: [400, 403, 404] }),
  body: 'input',
});

/** Occurrences: reported by people at their units, raised by the movement rules; closed with a resolution text. */
export const occurrenceRoutes: Route[] = [
  ...resourceRoutes({
    path: '/api/occurrences',
    tag: 'Occurrence',
    fields: { list: 'occurrences', read: 'occurrence', create: 'createOccurrence' },
    noun: ['occurrence', 'occurrences'],
    summaries: {
      index: 'Occurrences at the control units the caller sees (filters as query parameters)',
      search: 'Search occurrences (record fields: str_type, str_status, control_unit_id, animal_id, animals_egress_id, animals_ingress_id, gta_id, travel_id, ts_* ranges; establishment_id)',
      create: 'Report TAG_LOST, ANIMAL_DEATH (the ACTIVE animal becomes DEAD), THEFT (the ACTIVE animal becomes MISSING) or OTHER at a unit of the active organization (owners, managers, operators)',
    },
  }),
  close('resolve', 'OPEN → RESOLVED with str_resolution; a THEFT resolved brings its MISSING animal back to ACTIVE (found)'),
  close('dismiss', 'OPEN → DISMISSED with str_resolution; a THEFT dismissed brings its MISSING animal back to ACTIVE'),
];
