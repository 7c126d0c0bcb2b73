import type { Route } from './route.js';

type Action = 'index' | 'search' | 'create' | 'read' | 'update' | 'remove';

/** A resource group's standard endpoints (CONTRACT.md, "Paths of the groups"): declare the GraphQL fields, get the routes. */
export interface ResourceSpec {
  /** e.g. `/api/vehicles` */
  path: string;
  /** Names the operations `<tag>Index`, `<tag>Search`, `<tag>Create`, `<tag>Read`, `<tag>Update`, `<tag>Delete` and the OpenAPI tag. */
  tag: string;
  /** GraphQL fields: the paged list, the single read, and the mutations the group has. */
  fields: { list: string; read: string; create?: string; update?: string; remove?: string };
  /** Singular and plural nouns for the default summaries, and any summary to override. */
  noun: [one: string, many: string];
  summaries?: Partial<Record<Action, string>>;
}

const id = { id: { variable: 'id', uuid: true } };

export function resourceRoutes(spec: ResourceSpec): Route[] {
  const { path, tag, fields } = spec;
  const [one, many] = spec.noun;
  const summary = (action: Action, fallback: string) => spec.summaries?.[action] ?? fallback;
  const base = { auth: true, tag } as const;
  const routes: Route[] = [
    { ...base, method: 'GET', path, operation: `${tag}Index`, status: 200, page: 'page', filter: { from: 'query', variable: 'filter' }, pick: fields.list, paged: true, summary: summary('index', `List ${many}`) },
    { ...base, method: 'POST', path: `${path}/search`, operation: `${tag}Search`, status: 200, page: 'page', filter: { from: 'body', variable: 'filter' }, pick: fields.list, paged: true, summary: summary('search', `Search ${many}`) },
  ];
  if (fields.create) routes.push({ ...base, method: 'POST', path, operation: `${tag}Create`, status: 201, body: 'input', pick: fields.create, summary: summary('create', `Create a ${one}`) });
  routes.push({ ...base, method: 'GET', path: `${path}/:id`, operation: `${tag}Read`, status: 200, params: id, pick: fields.read, summary: summary('read', `One ${one}`) });
  if (fields.update) {
    for (const method of ['PUT', 'PATCH'] as const) {
      routes.push({ ...base, method, path: `${path}/:id`, operation: `${tag}Update`, status: 200, params: id, body: 'input', pick: fields.update, summary: summary('update', `Update a ${one}`) });
    }
  }
  if (fields.remove) routes.push({ ...base, method: 'DELETE', path: `${path}/:id`, operation: `${tag}Delete`, status: 204, params: id, pick: fields.remove, summary: summary('remove', `Remove a ${one}`) });
  return routes;
}

/** A state change on one record, `POST <base>/:id/<name>` (CONTRACT.md: "state changes as actions"). */
export function actionRoute(base: string, name: string, r: { operation: string; pick: string; summary: string; tag: string; errors?: number[] }): Route {
  return { method: 'POST', path: `${base}/:id/${name}`, auth: true, status: 200, params: id, ...r };
}
