import { randomUUID } from 'node:crypto';
import { useApp } from './helpers/app.js';
import { cpf, email, member } from './helpers/factories.js';

const app = useApp();

test('an owner signs in and reads itself over REST and GraphQL', async () => {
  const owner = await member(app);
  const rest = await app.call('GET', '/api/whoami', { token: owner.access });
  expect(rest.status).toBe(200);
  expect(rest.body.data.organization_id).toBe(owner.org.id);
  expect(rest.body.data.organizations).toEqual([{ id: owner.org.id, str_name: owner.org.str_name, str_role: 'OWNER' }]);
  const gql = await app.graphql('{ whoami { id } }', {}, owner.access);
  expect(gql.body.data.whoami.id).toBe(owner.user.id);
});

test('a client-chosen id already used with another body is a 422 CONFLICT, not a 500, and writes nothing', async () => {
  const owner = await member(app);
  const first = { id: randomUUID(), str_name: 'First', str_email: email('first'), str_document: cpf() };
  expect((await app.call('POST', '/api/users', { token: owner.access, body: first })).status).toBe(202);
  const body = { id: first.id, str_name: 'Copy', str_email: email('copy'), str_document: cpf() };
  const res = await app.call('POST', '/api/users', { token: owner.access, body });
  expect(res.status).toBe(422);
  expect(res.body.error).toBe('CONFLICT');
  const [{ n }] = await app.service.orm.em.fork().execute('select count(*)::int as n from "user" where str_email = ?', [body.str_email]);
  expect(n).toBe(0);
});
