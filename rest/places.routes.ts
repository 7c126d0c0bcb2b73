import type { Route } from './route.js';

const id = { id: { variable: 'id', uuid: true } };

export const countyRoutes: Route[] = [
  { method: 'GET', path: '/api/counties', auth: true, operation: 'CountyIndex', status: 200, page: 'page', filter: { from: 'query', variable: 'filter' }, pick: 'counties', paged: true, summary: 'IBGE municipalities (filters as query parameters: str_federative_unit, str_ibge_code, str_name, str_query, ...)', tag: 'County' },
  { method: 'POST', path: '/api/counties/search', auth: true, operation: 'CountySearch', status: 200, page: 'page', filter: { from: 'body', variable: 'filter' }, pick: 'counties', paged: true, summary: 'Search IBGE municipalities', tag: 'County' },
  { method: 'GET', path: '/api/counties/:id', auth: true, operation: 'CountyRead', status: 200, params: id, pick: 'county', summary: 'One IBGE municipality', tag: 'County' },
];
