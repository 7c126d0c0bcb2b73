import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

/** Animals: reads under both prefixes (the public API carries animals); corrections in the private one. */
const animalRoutesUnder = (base: string, write: boolean): Route[] => [
  ...resourceRoutes({
    path: `${base}/animals`,
    tag: 'Animal',
    fields: { list: 'animals', read: 'animal', ...(write ? { update: 'updateAnimal' } : {}) },
    noun: ['animal', 'animals'],
    summaries: {
      index: 'Animals at the control units the caller sees (Animal Partial Data; filters as query parameters)',
      search: 'Search animals (str_tag_code: any tag it ever carried; establishment_id; str_query over name, rod code and extra tag)',
      read: 'One animal with its current tag',
      update: "Correct what identification recorded (species, gender, birth, age and weight at identification, rod code, extra tag, name, description)",
    },
  }),
  {
    method: 'GET',
    path: `${base}/animals/:id/history`,
    auth: true,
    operation: 'AnimalHistoryIndex',
    status: 200,
    params: { id: { variable: 'id', uuid: true } },
    page: 'page',
    pick: 'animalHistory',
    paged: true,
    summary: "The animal's events, oldest first by when they happened",
    tag: 'Animal History',
  },
];

export const animalRoutes: Route[] = [...animalRoutesUnder('/api', true), ...animalRoutesUnder('/api/v1', false)];
