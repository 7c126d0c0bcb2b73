import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { Include, Pick } from '../src/db/reader.js';
import { pickOf } from './columns.js';

/**
 * What a GraphQL type's fields need joined, as PostGraphile's planner looks ahead: a field names
 * the relation path it reads (a computed field too: `str_county_name` needs `county`), and an
 * object field the needs of its own type, for what the query selects under it.
 */
export interface Need {
  path: string[];
  next?: () => Needs;
}
export type Needs = Record<string, Need>;

type Fields = Map<string, FieldNode[]>;

function collect(info: GraphQLResolveInfo, set: SelectionSetNode | undefined, into: Fields): Fields {
  if (!set) return into;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      const list = into.get(s.name.value);
      if (list) list.push(s);
      else into.set(s.name.value, [s]);
    } else if (s.kind === Kind.INLINE_FRAGMENT) collect(info, s.selectionSet, into);
    else {
      const fragment = info.fragments[s.name.value];
      if (fragment) collect(info, fragment.selectionSet, into);
    }
  }
  return into;
}

const fieldsUnder = (info: GraphQLResolveInfo, nodes: readonly FieldNode[]): Fields => {
  const fields: Fields = new Map();
  for (const n of nodes) collect(info, n.selectionSet, fields);
  return fields;
};

function addNeeds(info: GraphQLResolveInfo, needs: Needs, fields: Fields, include: Include): void {
  for (const [name, nodes] of fields) {
    const need = needs[name];
    if (!need) continue;
    let at = include;
    for (const step of need.path) at = at[step] ??= {};
    if (need.next) addNeeds(info, need.next(), fieldsUnder(info, nodes), at);
  }
}

// A list's items resolve the same field nodes once per parent: look ahead once.
const cache = new WeakMap<readonly FieldNode[], Include>();

/** The relations to join for the record the current field returns. */
export function includeOf(info: GraphQLResolveInfo, needs: Needs): Include {
  let include = cache.get(info.fieldNodes);
  if (!include) {
    include = {};
    addNeeds(info, needs, fieldsUnder(info, info.fieldNodes), include);
    cache.set(info.fieldNodes, include);
  }
  return include;
}

interface PageLookahead {
  include: Include;
  count: boolean;
  pick: Pick | undefined;
}
const pages = new WeakMap<readonly FieldNode[], PageLookahead>();

/** For a page (`{ data, meta }`): the relations its records need, whether `meta` is selected (the count), and the columns the operation reads; once per field of a parsed document. */
export function pageLookahead(info: GraphQLResolveInfo, needs: Needs): PageLookahead {
  let page = pages.get(info.fieldNodes);
  if (!page) {
    const fields = fieldsUnder(info, info.fieldNodes);
    const include: Include = {};
    const data = fields.get('data');
    if (data) addNeeds(info, needs, fieldsUnder(info, data), include);
    page = { include, count: fields.has('meta'), pick: pickOf(info) };
    pages.set(info.fieldNodes, page);
  }
  return page;
}
