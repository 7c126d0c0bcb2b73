import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

export const countyRoutes: Route[] = resourceRoutes({
  path: '/api/counties',
  tag: 'County',
  fields: { list: 'counties', read: 'county' },
  noun: ['IBGE municipality', 'IBGE municipalities'],
  summaries: { index: 'IBGE municipalities (filters as query parameters: str_federative_unit, str_ibge_code, str_name, str_query, ...)' },
});
