import {
  getNamedType, isEnumType, isListType, isNonNullType, isObjectType, isScalarType, Kind,
  type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema,
  type SelectionNode, type SelectionSetNode,
} from 'graphql';
import { isRelation } from './absent-relations.js';
import type { NamedOperation } from './operations.js';

type Json = Record<string, unknown>;
type Selected = { type: GraphQLOutputType; sets: SelectionSetNode[] };

/**
 * The JSON Schemas of REST answers, read from the selection sets the routes run (a REST answer is
 * exactly what its operation selects, CONTRACT.md "One vocabulary"), not from the whole GraphQL
 * type: a field the operation does not select is not in the answer, so it is not in the schema.
 * A selection that is one fragment spread is a component named after the fragment, which is named
 * after interface.md's record (`EstablishmentPartialData`). Every selected field is required,
 * except a nullable relation: the REST layer leaves it out rather than null (absent-relations.ts).
 */
export function answerSchemas(schema: GraphQLSchema, operations: Iterable<NamedOperation>, components: Record<string, Json>, scalar: (named: GraphQLNamedType) => Json) {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const op of operations) for (const d of op.document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const objectType = (name: string): GraphQLObjectType => {
    const type = schema.getType(name);
    if (!type || !isObjectType(type)) throw new Error(`OpenAPI: fragment on ${name}, which is not an object type`);
    return type;
  };

  /** The fields a selection set answers, by response key, fragments spread in. */
  const collect = (type: GraphQLObjectType, selections: readonly SelectionNode[], into = new Map<string, Selected>()): Map<string, Selected> => {
    for (const s of selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value)!;
        collect(objectType(fragment.typeCondition.name.value), fragment.selectionSet.selections, into);
      } else if (s.kind === Kind.INLINE_FRAGMENT) collect(s.typeCondition ? objectType(s.typeCondition.name.value) : type, s.selectionSet.selections, into);
      else {
        const key = s.alias?.value ?? s.name.value;
        const type_ = s.name.value === '__typename' ? null : type.getFields()[s.name.value]?.type;
        if (type_ === undefined) throw new Error(`OpenAPI: ${type.name} has no field ${s.name.value}`);
        const entry = into.get(key) ?? { type: type_ ?? (schema.getType('String') as GraphQLOutputType), sets: [] };
        if (s.selectionSet) entry.sets.push(s.selectionSet);
        into.set(key, entry);
      }
    }
    return into;
  };

  const objectSchema = (type: GraphQLObjectType, sets: SelectionSetNode[]): Json => {
    const selections = sets.flatMap((s) => s.selections);
    const only = selections.length === 1 ? selections[0]! : null;
    if (only?.kind === Kind.FRAGMENT_SPREAD) {
      const name = only.name.value;
      if (!components[name]) {
        components[name] = {}; // a fragment that reaches itself again refers to itself
        const fragment = fragments.get(name)!;
        components[name] = inline(objectType(fragment.typeCondition.name.value), fragment.selectionSet.selections);
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    return inline(type, selections);
  };

  const inline = (type: GraphQLObjectType, selections: readonly SelectionNode[]): Json => {
    const fields = collect(type, selections);
    const properties: Json = {};
    const required: string[] = [];
    for (const [key, selected] of fields) {
      const relation = isRelation(selected.type);
      properties[key] = fieldSchema(selected.type, selected.sets, !relation);
      if (!relation || isNonNullType(selected.type)) required.push(key);
    }
    return { type: 'object', properties, required };
  };

  /** A field's schema; `nullable` false drops the null a nullable GraphQL type would allow. */
  const fieldSchema = (type: GraphQLOutputType, sets: SelectionSetNode[], nullable = true): Json => {
    if (isNonNullType(type)) return fieldSchema(type.ofType, sets, false);
    let inner: Json;
    if (isListType(type)) inner = { type: 'array', items: fieldSchema(type.ofType, sets) };
    else {
      const named = getNamedType(type);
      if (isObjectType(named)) inner = objectSchema(named, sets);
      else if (isScalarType(named) || isEnumType(named)) inner = scalar(named);
      else inner = { type: 'object' };
    }
    return nullable ? { anyOf: [inner, { type: 'null' }] } : inner;
  };

  /** The schema of `data[pick]` of an operation's answer, and of each of its fields (a page's `data`, `meta`, ...). */
  return (operation: NamedOperation, pick: string): { whole: Json; part: (key: string) => Json } | null => {
    const root = operation.definition.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    const top = collect(root, operation.definition.selectionSet.selections).get(pick);
    if (!top) return null;
    const named = getNamedType(top.type);
    const fields = isObjectType(named) ? collect(named, top.sets.flatMap((s) => s.selections)) : new Map<string, Selected>();
    const part = (key: string): Json => {
      const selected = fields.get(key);
      if (!selected) throw new Error(`OpenAPI: ${operation.definition.name?.value} selects no ${pick}.${key}`);
      return fieldSchema(selected.type, selected.sets, false);
    };
    return { whole: fieldSchema(top.type, top.sets, false), part };
  };
}
