import { buildClientSchema, getIntrospectionQuery, getNamedType, isInputObjectType, type GraphQLSchema } from 'graphql';
import { useApp } from './helpers/app.js';
import { animalBody, fieldWork, identify } from './helpers/identify.js';

const app = useApp();

const ANIMALS = `query ($where: AnimalFilter, $orderBy: AnimalOrder, $filter: JSONObject) {
  animals(where: $where, orderBy: $orderBy, filter: $filter) { data { id str_name str_gender } meta { int_total_results } }
}`;

/** Three animals at one unit: Vaca 0 (FEMALE), Vaca 1 (MALE), Vaca 2 (FEMALE), identified in that order. */
async function herd() {
  const { owner, unit, stock } = await fieldWork(app, 3);
  const ti = await identify(app, owner.access, unit, stock.codes.map((c, i) => animalBody(c, { str_name: `Vaca ${i}`, str_gender: i === 1 ? 'MALE' : 'FEMALE' })));
  return { token: owner.access, unit, ids: (ti.animals as { id: string }[]).map((a) => a.id) };
}

describe('typed list filters (where, orderBy)', () => {
  test('where filters with typed fields and orderBy orders by an enum field; the answer equals the untyped filter’s', async () => {
    const { token, unit, ids } = await herd();
    const typed = await app.graphql(ANIMALS, { where: { str_gender: 'FEMALE', last_control_unit_id: unit.unitId.toUpperCase() }, orderBy: { field: 'str_name', direction: 'ASC' } }, token);
    expect(typed.body.errors).toBeUndefined();
    expect(typed.body.data.animals.data.map((a: { id: string }) => a.id)).toEqual([ids[0], ids[2]]);
    expect(typed.body.data.animals.meta.int_total_results).toBe(2);

    const untyped = await app.graphql(ANIMALS, { filter: { str_gender: 'FEMALE', last_control_unit_id: unit.unitId, str_order_by: 'str_name', str_order: 'ASC' } }, token);
    expect(untyped.body.data).toEqual(typed.body.data);

    // direction defaults to DESC; a time range takes DateTime values.
    const newestFirst = await app.graphql(ANIMALS, { where: { last_control_unit_id: unit.unitId, ts_created_at_from: '2000-01-01T00:00:00Z' }, orderBy: { field: 'str_name' } }, token);
    expect(newestFirst.body.data.animals.data.map((a: { str_name: string }) => a.str_name)).toEqual(['Vaca 2', 'Vaca 1', 'Vaca 0']);
    const none = await app.graphql(ANIMALS, { where: { last_control_unit_id: unit.unitId, ts_created_at_to: '2000-01-01T00:00:00Z' } }, token);
    expect(none.body.data.animals.meta.int_total_results).toBe(0);
  });

  test('a wrong type, an unknown field and an unknown order field are refused by GraphQL validation before any SQL', async () => {
    const { token } = await herd();
    const cases: [Record<string, unknown>, string][] = [
      [{ where: { str_gender: 5 } }, 'str_gender'],
      [{ where: { str_colour: 'red' } }, 'str_colour'],
      [{ orderBy: { field: 'str_colour' } }, 'str_colour'],
      [{ where: { ts_created_at_from: 'yesterday' } }, 'ts_created_at_from'],
      [{ where: { id: 'not-a-uuid' } }, 'id'],
    ];
    for (const [variables, field] of cases) {
      const res = await app.graphql(ANIMALS, variables, token);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.errors[0])).toContain(field);
      expect(res.sql).toBeLessThanOrEqual(1); // authentication at most: the query never ran
    }
  });

  test('every list query that takes a filter also takes a typed where and orderBy, made from the same fields', async () => {
    const res = await app.graphql(getIntrospectionQuery({ inputValueDeprecation: true }));
    const schema: GraphQLSchema = buildClientSchema(res.body.data);
    const lists = Object.values(schema.getQueryType()!.getFields()).filter((f) => f.args.some((a) => a.name === 'filter'));
    expect(lists.length).toBeGreaterThanOrEqual(23);
    for (const list of lists) {
      const args = Object.fromEntries(list.args.map((a) => [a.name, a]));
      expect({ list: list.name, deprecated: args.filter!.deprecationReason }).toEqual({ list: list.name, deprecated: 'Untyped: use where and orderBy' });
      const where = getNamedType(args.where!.type);
      const orderBy = getNamedType(args.orderBy!.type);
      expect(isInputObjectType(where) && isInputObjectType(orderBy)).toBe(true);
      if (!isInputObjectType(where) || !isInputObjectType(orderBy)) continue;
      expect(Object.keys(where.getFields())).toEqual(expect.arrayContaining(['id', 'str_query', 'ts_created_at_from', 'ts_created_at_to']));
      expect(Object.keys(orderBy.getFields()).sort()).toEqual(['direction', 'field']);
    }
  });
});
