import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

export const countyRoutes: Route[] = resourceRoutes({
  path: '/api/counties',
  tag: 'County',
  fields: { list: 'counties', read: 'county' },
  noun: ['IBGE municipality', 'IBGE municipalities'],
  summaries: { index: 'IBGE municipalities (filters as query parameters: str_federative_unit, str_ibge_code, str_name, str_query, ...)' },
});

const id = { id: { variable: 'id', uuid: true } };

/** The establishment group of interface.md under one prefix: the resource's standard endpoints plus the unrestricted search. */
function establishmentRoutesUnder(base: string, publicApi: boolean): Route[] {
  const routes = resourceRoutes({
    path: `${base}/establishments`,
    tag: 'Establishment',
    fields: { list: 'establishments', read: 'establishment', create: 'createEstablishment', update: 'updateEstablishment' },
    noun: ['establishment', 'establishments'],
    summaries: {
      index: 'Establishments the caller sees (Establishment Partial Data; filters as query parameters)',
      search: 'Search establishments the caller sees',
      create: publicApi ? 'Register an establishment in the active organization (str_ibge_code, str_name, str_type required)' : 'Register an establishment in the active organization (county by county_id or str_ibge_code)',
      update: 'Update an establishment (statuses: authorities and administrators)',
    },
  }).map((r): Route => (publicApi && r.operation === 'EstablishmentCreate' ? { ...r, operation: 'EstablishmentPublicCreate', pick: 'createPublicEstablishment', requiredBody: ['str_ibge_code', 'str_name', 'str_type'] } : r));
  routes.push({ method: 'POST', path: `${base}/establishments/unrestricted/search`, auth: true, operation: 'EstablishmentUnrestrictedSearch', status: 200, page: 'page', filter: { from: 'body', variable: 'filter' }, pick: 'establishmentsUnrestricted', paged: true, summary: "Search every organization's establishments (public fields; a CPF masked)", tag: 'Establishment' });
  return routes;
}

export const establishmentRoutes: Route[] = [
  ...establishmentRoutesUnder('/api', false),
  { method: 'GET', path: '/api/establishments/:id/history', auth: true, operation: 'EstablishmentHistoryIndex', status: 200, params: id, page: 'page', pick: 'establishmentHistory', paged: true, summary: "The establishment's events, oldest first", tag: 'Establishment History' },
  ...establishmentRoutesUnder('/api/v1', true),
];

const controlUnitRoutesUnder = (base: string): Route[] =>
  resourceRoutes({
    path: `${base}/control-units`,
    tag: 'ControlUnit',
    fields: { list: 'controlUnits', read: 'controlUnit', create: 'createControlUnit', update: 'updateControlUnit' },
    noun: ['control unit', 'control units'],
    summaries: { index: 'Control units of the establishments the caller sees', create: 'Add a control unit to an establishment (a client id makes it idempotent)' },
  }).map((r) => ({ ...r, tag: 'Control Unit' }));

export const controlUnitRoutes: Route[] = [...controlUnitRoutesUnder('/api'), ...controlUnitRoutesUnder('/api/v1')];
