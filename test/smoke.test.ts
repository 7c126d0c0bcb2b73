import { startApp, type TestApp } from './helpers/app.js';
import { member } from './helpers/factories.js';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app.close());

test('an owner signs in and reads itself over REST and GraphQL', async () => {
  const owner = await member(app);
  const rest = await app.call('GET', '/api/whoami', { token: owner.access });
  expect(rest.status).toBe(200);
  expect(rest.body.data.organization_id).toBe(owner.org.id);
  expect(rest.body.data.organizations).toEqual([{ id: owner.org.id, str_name: owner.org.str_name, str_role: 'OWNER' }]);
  const gql = await app.graphql('{ whoami { id } }', {}, owner.access);
  expect(gql.body.data.whoami.id).toBe(owner.user.id);
});
