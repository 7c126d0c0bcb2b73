import { getNamedType, isObjectType, Kind, type GraphQLObjectType, type GraphQLResolveInfo, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Pick, Source } from '../src/db/reader.js';
import { animalSource } from '../src/animals/animal.reader.js';
import { userSource } from '../src/identity/user.reader.js';
import { controlUnitSource } from '../src/places/control-unit.reader.js';
import { countySource } from '../src/places/county.reader.js';
import { establishmentSource } from '../src/places/establishment.reader.js';
import { tagSource } from '../src/tags/tag.reader.js';

/** Columns of a source that a field reads. */
type Reads = [Source, string[]][];

/**
 * What each field of a type reads of the readers' rows, for the types whose rows a read may narrow
 * to the columns a query selects (PostGraphile selects no more either). A field named like a
 * column of its source reads that column; every other field is listed here with what it reads
 * (nothing for a relation: ids and `*_id` columns are always read). A type is either one source's
 * rows or a value built from them (`source` absent: pages, GeoPoint...).
 *
 * A narrowed row is primed into the request's loaders, where any resolver of the operation may
 * find it: so an operation is narrowed only when every type and field it selects is known here,
 * and every row of a source then carries what any of those fields reads. Anything else (another
 * root field, a type not listed, a field not known) reads whole rows, as before.
 */
interface TypeReads {
  source?: Source;
  fields?: Record<string, Reads>;
}

const point = (source: Source): Reads => [[source, ['num_longitude', 'num_latitude']]];

const TYPES: Record<string, TypeReads> = {
  Animal: {
    source: animalSource,
    fields: {
      current_tag: [],
      geo_identification: point(animalSource),
      str_current_tag_code: [[tagSource, ['str_code']]],
      str_last_control_unit_code: [[controlUnitSource, ['str_code']]],
      str_establishment_name: [[establishmentSource, ['str_name']]],
    },
  },
  Tag: { source: tagSource, fields: { last_control_unit: [] } },
  ControlUnit: { source: controlUnitSource, fields: { establishment: [], responsible_user: [], str_responsible_user_name: [[userSource, ['str_name']]] } },
  Establishment: {
    source: establishmentSource,
    fields: {
      county: [],
      responsible_user: [],
      control_units: [],
      geo_location: point(establishmentSource),
      str_county_federative_unit: [[countySource, ['str_federative_unit']]],
      str_county_ibge_uf_code: [[countySource, ['str_ibge_code']]],
      str_county_name: [[countySource, ['str_name']]],
      str_responsible_document: [[userSource, ['str_document']]],
      str_responsible_user_name: [[userSource, ['str_name']]],
    },
  },
  County: { source: countySource },
  User: { source: userSource, fields: { organizations: [] } },
  UserOrganization: {},
  GeoPoint: {},
  PaginationMeta: {},
  AnimalPage: {},
  EstablishmentPage: {},
};

/** Root fields whose resolvers pass the narrowing on (and read nothing else). */
const ROOT_FIELDS = new Set(['animals', 'animal', 'establishments']);

/** What an operation reads of each table (sources of one table show the same columns), or null when it must read whole rows. */
function readsOf(info: GraphQLResolveInfo): Map<string, Set<string>> | null {
  const operation = info.operation;
  if (operation.operation !== 'query') return null;
  const reads = new Map<string, Set<string>>();
  const add = (source: Source, columns: Iterable<string>) => {
    let set = reads.get(source.table);
    if (!set) reads.set(source.table, (set = new Set()));
    for (const c of columns) set.add(c);
  };
  const walk = (type: GraphQLObjectType, set: SelectionSetNode, root: boolean): boolean => {
    const known = TYPES[type.name];
    if (!root && !known) return false;
    for (const s of set.selections) {
      if (s.kind !== Kind.FIELD) {
        const fragment = s.kind === Kind.INLINE_FRAGMENT ? s : info.fragments[s.name.value];
        if (!fragment) return false;
        const on = fragment.typeCondition ? info.schema.getType(fragment.typeCondition.name.value) : type;
        if (!isObjectType(on) || !walk(on, fragment.selectionSet, root)) return false;
        continue;
      }
      const name = s.name.value;
      if (name === '__typename') continue;
      const field = type.getFields()[name];
      if (!field) return false;
      if (root) {
        if (!ROOT_FIELDS.has(name)) return false;
      } else if (known?.source) {
        const declared = known.fields?.[name];
        if (declared) for (const [source, columns] of declared) add(source, columns);
        else if (known.source.columnNames?.includes(name)) add(known.source, [name]);
        else return false;
      }
      if (s.selectionSet) {
        const next = getNamedType(field.type);
        if (!isObjectType(next) || !walk(next, s.selectionSet, false)) return false;
      }
    }
    return true;
  };
  const rootType = info.schema.getQueryType();
  return rootType && walk(rootType, operation.selectionSet, true) ? reads : null;
}

const NONE: ReadonlySet<string> = new Set();
const picks = new WeakMap<OperationDefinitionNode, Pick | null>();

/**
 * The columns the operation needs of each source (once per parsed document): a source none of
 * its fields reads still gives its ids. Undefined when the operation reads whole rows.
 */
export function pickOf(info: GraphQLResolveInfo): Pick | undefined {
  let pick = picks.get(info.operation);
  if (pick === undefined) {
    const reads = readsOf(info);
    pick = reads ? (source) => reads.get(source.table) ?? NONE : null;
    picks.set(info.operation, pick);
  }
  return pick ?? undefined;
}
