import { PRODUCTION_ENV, useApp } from './helpers/app.js';
import { member } from './helpers/factories.js';

const app = useApp();
const production = useApp(PRODUCTION_ENV);

const nest = (depth: number): string => {
  let q = 'id';
  for (let i = 0; i < depth; i++) q = i % 2 ? `establishment { id ${q} }` : `control_units { id ${q} }`;
  return q;
};

/** Issue 9: no query can take the server down; each is refused before it runs, with a code GraphQL clients know. */
describe('GraphQL limits', () => {
  test('a query 40 levels deep, 1,000 aliases, or 5,000 levels of nesting is refused before it runs', async () => {
    const owner = await member(app);
    const deep = await app.graphql(`query($id: UUID!) { establishment(id: $id) { ${nest(40)} } }`, { id: owner.org.id }, owner.access);
    expect(deep.status).toBe(400);
    expect(deep.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(deep.body.errors[0].message).toMatch(/depth|cost/i);
    expect(deep.sql).toBe(1); // authentication only: nothing ran

    const aliases = Array.from({ length: 1000 }, (_, i) => `c${i}: counties(page: {int_max_results: 500}) { data { id } }`).join(' ');
    const wide = await app.graphql(`{ ${aliases} }`, {}, owner.access);
    expect(wide.status).toBe(400);
    expect(wide.body.errors[0].extensions.code).toMatch(/^GRAPHQL_(VALIDATION|PARSE)_FAILED$/);
    expect(wide.sql).toBe(1);

    const overflow = await app.graphql(`{ ${'whoami { '.repeat(5000)}id${' }'.repeat(5000)} }`, {}, owner.access);
    expect(overflow.status).toBe(400);
    expect(overflow.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  test('the queries a frontend writes pass: the nested animals page of the peers bench', async () => {
    const owner = await member(app);
    const res = await app.graphql(
      `{ animals(page: {int_max_results: 50}) { meta { int_total_results } data { id current_tag { id str_code last_control_unit { id str_name establishment { id str_name county { id str_name } control_units { id str_code } } } } } } }`,
      {},
      owner.access,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.status).toBe(200);
  });

  test('parse and validation failures keep the codes GraphQL clients handle; production suggests no field names', async () => {
    const owner = await member(app);
    const parse = await app.graphql('{ whoami { id ', {}, owner.access);
    expect(parse.status).toBe(400);
    expect(parse.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const invalid = await app.graphql('{ whoamii { id } }', {}, owner.access);
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(invalid.body.errors[0].message).toMatch(/Did you mean/);
    const prod = await production.graphql('{ whoamii { id } }');
    expect(prod.status).toBe(400);
    expect(prod.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(prod.body.errors[0].message).not.toMatch(/Did you mean|whoami\b/);
  });

  test('production suggests no enum value either, in a literal or in a variable (message and detail)', async () => {
    const mutation = (role: string) => `mutation($id: UUID!) { addOrganizationMember(id: $id, input: {user_id: $id, str_role: ${role}}) { id } }`;
    const variable = 'mutation($id: UUID!, $input: MemberInput!) { addOrganizationMember(id: $id, input: $input) { id } }';
    const owner = await member(app);
    const dev = await app.graphql(mutation('OWNERR'), { id: owner.org.id }, owner.access);
    expect(dev.body.errors[0].message).toMatch(/Did you mean the enum value "OWNER"/);
    const prodOwner = await member(production);
    const literal = await production.graphql(mutation('OWNERR'), { id: prodOwner.org.id }, prodOwner.access);
    const coerced = await production.graphql(variable, { id: prodOwner.org.id, input: { user_id: prodOwner.org.id, str_role: 'OWNERR' } }, prodOwner.access);
    for (const res of [literal, coerced]) {
      expect(res.body.errors).toHaveLength(1);
      expect(JSON.stringify(res.body.errors)).not.toMatch(/Did you mean|"OWNER"|MANAGER|VIEWER/);
    }
    expect(literal.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(coerced.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { str_role: [expect.stringContaining('[Suggestion hidden]')] } } });
  });
});
