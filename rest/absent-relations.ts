import {
  getNamedType, isListType, isNonNullType, isObjectType, Kind,
  type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema, type SelectionSetNode,
} from 'graphql';
import type { NamedOperation } from './operations.js';

/** The schema's GeoJSON Point type: interface.md marks its fields (geo_*) nullable, so a null one stays. */
const GEOJSON_POINT = 'GeoPoint';

/**
 * A relation: a field whose value is one record (an object type that is not a GeoJSON Point, not a list).
 * interface.md: "Fields marked nullable may be null" and "Fields not marked required are optional in
 * responses". It marks scalars, GeoJSON Points and lists nullable where they may be null, and no
 * relation (Vehicle.owner, a unit's responsible_user, Invite.gta, Establishment.county, ...): a relation
 * the record does not have is left out of a REST answer. GraphQL answers null, as its schema says.
 */
export function isRelation(type: GraphQLOutputType): boolean {
  const inner = isNonNullType(type) ? type.ofType : type;
  return !isListType(inner) && isObjectType(inner) && inner.name !== GEOJSON_POINT;
}

/** Where relations sit in an answer: its keys that are relations, and the keys below which some are. */
type Plan = { key: string; relation: boolean; nested: Plan | null }[];
type Selection = { type: GraphQLObjectType; set: SelectionSetNode };
type Fields = Map<string, { type: GraphQLOutputType; below: Selection[] }>;

/**
 * Built once per route from its operation: a function that deletes, in place and in one pass, every
 * null relation of the answer `data[pick]` (the answer itself is kept). It walks only the parts of
 * the selection that can hold a relation, so a scalar-only record costs a few property reads.
 */
export function absentRelationsRemover(schema: GraphQLSchema, operation: NamedOperation, pick: string): (answer: unknown) => void {
  const fragments = new Map<string, SelectionSetNode>();
  const conditions = new Map<string, string>();
  for (const d of operation.document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(d.name.value, d.selectionSet);
      conditions.set(d.name.value, d.typeCondition.name.value);
    }
  }
  const typeOf = (name: string | undefined, fallback: GraphQLObjectType): GraphQLObjectType => {
    const t = name ? schema.getType(name) : undefined;
    return t && isObjectType(t) ? t : fallback;
  };

  /** Fields of a selection set by response key, fragments spread in (the same key may come from several). */
  const collect = (type: GraphQLObjectType, set: SelectionSetNode, into: Fields): Fields => {
    for (const s of set.selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) collect(typeOf(conditions.get(s.name.value), type), fragments.get(s.name.value)!, into);
      else if (s.kind === Kind.INLINE_FRAGMENT) collect(typeOf(s.typeCondition?.name.value, type), s.selectionSet, into);
      else {
        const field = type.getFields()[s.name.value];
        if (!field) continue; // __typename
        const key = s.alias?.value ?? s.name.value;
        const entry = into.get(key) ?? { type: field.type, below: [] };
        const named = getNamedType(field.type);
        if (s.selectionSet && isObjectType(named)) entry.below.push({ type: named, set: s.selectionSet });
        into.set(key, entry);
      }
    }
    return into;
  };

  const planOf = (selections: Selection[]): Plan | null => {
    const fields: Fields = new Map();
    for (const { type, set } of selections) collect(type, set, fields);
    const plan: Plan = [];
    for (const [key, { type, below }] of fields) {
      const relation = isRelation(type);
      const nested = below.length ? planOf(below) : null;
      if (relation || nested) plan.push({ key, relation, nested });
    }
    return plan.length ? plan : null;
  };

  const root = operation.definition.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const top = collect(root, operation.definition.selectionSet, new Map()).get(pick);
  const plan = top ? planOf(top.below) : null;
  return plan ? (answer) => remove(answer, plan) : () => {};
}

function remove(value: unknown, plan: Plan): void {
  if (Array.isArray(value)) {
    for (const item of value) remove(item, plan);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const { key, relation, nested } of plan) {
    const v = record[key];
    if (v === null) {
      if (relation) delete record[key];
    } else if (nested) remove(v, nested);
  }
}
