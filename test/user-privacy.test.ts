import { mustPost, useApp, type Reply } from './helpers/app.js';
import type { Person } from './helpers/factories.js';
import { egressRead, holding, issueGta } from './helpers/movements.js';
import { useCounty } from './helpers/places.js';
import { share } from './helpers/sharing.js';
import { stockAnimals } from './helpers/tags.js';
import { transporterWithTruck } from './helpers/travels.js';

/**
 * CONTRACT.md, Accounts: a User read by anyone outside the person's organizations shows `id`,
 * `str_name` and `str_type`; e-mail, CPF, phone and organizations are null or empty. Every record
 * that names a person is read here, over REST and GraphQL, by someone who is a stranger to them.
 */
const app = useApp();
const county = useCounty(app);

const USER = 'id str_name str_type str_email str_document str_phone bl_admin bl_verified county_id organization_id ts_terms_accepted_at organizations { id str_name str_role }';
const PHONE = () => `+55619${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

/** Each person's e-mail, CPF and phone, to look for in what a stranger got. */
function secretsOf(person: Person, phone: string): string[] {
  return [person.email, person.document, phone];
}

function expectNoneIn(what: string, body: unknown, secrets: string[]): void {
  const text = JSON.stringify(body);
  for (const secret of secrets) expect({ what, leaks: text.includes(secret) ? secret : null }).toEqual({ what, leaks: null });
}

/** A person as a stranger sees them: name and type, nothing else. */
const asStranger = (person: Person) => ({ id: person.user.id, str_name: person.user.str_name, str_type: person.user.str_type, str_email: null, str_document: null, str_phone: null, organizations: [] });

/** The fields a selection has of `asStranger` (a REST record selects some of them). */
function expectStranger(seen: Record<string, unknown>, person: Person): void {
  const want: Record<string, unknown> = asStranger(person);
  expect(Object.fromEntries(Object.keys(want).filter((k) => k in seen).map((k) => [k, seen[k]]))).toEqual(Object.fromEntries(Object.keys(want).filter((k) => k in seen).map((k) => [k, want[k]])));
  expect(seen.id).toBe(person.user.id);
}

test('a stranger reads every record naming a person (an operator, a GTA responsible, a responsible user, a transporter, a vehicle owner, an invitee, a requester) and finds no e-mail, CPF or phone', async () => {
  const farm = await holding(app, county, 'FARM');
  const feedlot = await holding(app, county, 'FEEDLOT');
  const { driver, vehicle } = await transporterWithTruck(app);
  const em = app.service.orm.em.fork();
  const phones = new Map<string, string>();
  for (const p of [farm.owner, feedlot.owner, driver]) {
    phones.set(p.user.id, PHONE());
    await em.execute('update "user" set str_phone = ? where id = ?', [phones.get(p.user.id), p.user.id]);
  }
  await em.execute('update establishment set responsible_user_id = ? where id = ?', [farm.owner.user.id, farm.unit.establishmentId]);
  await em.execute('update control_unit set responsible_user_id = ? where id = ?', [farm.owner.user.id, farm.unit.unitId]);
  const { codes } = await stockAnimals(app, farm.unit.unitId, 2);
  const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 2);
  await em.execute('update gta set responsible_user_id = ? where id = ?', [farm.owner.user.id, gta.id]);
  const egress = (await mustPost(app, '/api/animals-egress', farm.owner.access, { from_control_unit_id: farm.unit.unitId, to_control_unit_id: feedlot.unit.unitId, gta_id: gta.id, tags: codes.map((c) => egressRead(c)) })).body.data;
  const travel = (await mustPost(app, '/api/travels', farm.owner.access, { vehicle_id: vehicle.id, transporter_user_id: driver.user.id, from_control_unit_id: farm.unit.unitId, to_control_unit_id: feedlot.unit.unitId })).body.data;
  await share(app, farm.owner.access, { lst_org_ids: [feedlot.owner.org.id], accesses: [{ establishment_id: farm.unit.establishmentId, str_scope: 'ALL' }] });
  const invite = (await mustPost(app, '/api/invites', farm.owner.access, { control_unit_id: farm.unit.unitId, user_id: feedlot.owner.user.id, str_movimentation_type: 'BOTH', str_type: 'OPERATOR' })).body.data;
  const request = (await mustPost(app, '/api/invite-requests', feedlot.owner.access, { control_unit_id: farm.unit.unitId, str_movimentation_type: 'INGRESS', str_type: 'VIEWER' })).body.data;

  const farmer = secretsOf(farm.owner, phones.get(farm.owner.user.id)!);
  const trucker = secretsOf(driver, phones.get(driver.user.id)!);
  const buyer = secretsOf(feedlot.owner, phones.get(feedlot.owner.user.id)!);
  const ok = (res: Reply, what: string): Reply['body'] => {
    expect({ what, status: res.status }).toEqual({ what, status: 200 });
    return res.body;
  };

  // The feedlot's owner: a stranger to the farmer and the trucker.
  const buyerReads: Record<string, Reply['body']> = {
    egress: ok(await app.call('GET', `/api/animals-egress/${egress.id}`, { token: feedlot.owner.access }), 'egress'),
    gta: ok(await app.call('GET', `/api/gtas/${gta.id}`, { token: feedlot.owner.access }), 'gta'),
    travel: ok(await app.call('GET', `/api/travels/${travel.id}`, { token: feedlot.owner.access }), 'travel'),
    establishment: ok(await app.call('GET', `/api/establishments/${farm.unit.establishmentId}`, { token: feedlot.owner.access }), 'shared establishment'),
    search: ok(await app.call('POST', '/api/establishments/search', { token: feedlot.owner.access, body: {} }), 'establishments'),
  };
  const graphql = await app.graphql(
    `query($e: UUID!, $g: UUID!, $t: UUID!, $s: UUID!) {
      animalsEgress(id: $e) { operator_user { ${USER} } from_control_unit { responsible_user { ${USER} } } }
      gta(id: $g) { responsible_user { id str_name str_document } }
      travel(id: $t) { transporter { ${USER} } vehicle { owner { ${USER} } } }
      establishment(id: $s) { str_responsible_document responsible_user { ${USER} } control_units { responsible_user { ${USER} } } }
    }`,
    { e: egress.id, g: gta.id, t: travel.id, s: farm.unit.establishmentId },
    feedlot.owner.access,
  );
  expect(graphql.body.errors).toBeUndefined();
  for (const [what, body] of [...Object.entries(buyerReads), ['graphql', graphql.body.data] as const]) expectNoneIn(what, body, [...farmer, ...trucker]);
  // Not vacuous: the people are there, by name.
  expectStranger(buyerReads.egress.data.operator_user, farm.owner);
  expect(graphql.body.data.animalsEgress.operator_user).toMatchObject(asStranger(farm.owner));
  expect(graphql.body.data.travel.transporter).toMatchObject(asStranger(driver));
  expect(graphql.body.data.establishment.responsible_user).toMatchObject(asStranger(farm.owner));
  expect(graphql.body.data.gta.responsible_user).toEqual({ id: farm.owner.user.id, str_name: farm.owner.user.str_name, str_document: null });

  // The farm's owner: a stranger to the feedlot's owner it invited and who asked to be invited.
  const farmerReads = {
    invite: ok(await app.call('GET', `/api/invites/${invite.id}`, { token: farm.owner.access }), 'invite'),
    request: ok(await app.call('GET', `/api/invite-requests/${request.id}`, { token: farm.owner.access }), 'invite request'),
    graphql: await app.graphql(`query($i: UUID!, $r: UUID!) { invite(id: $i) { user { ${USER} } } inviteRequest(id: $r) { user { ${USER} } } }`, { i: invite.id, r: request.id }, farm.owner.access),
  };
  expect(farmerReads.graphql.body.errors).toBeUndefined();
  for (const [what, body] of Object.entries(farmerReads)) expectNoneIn(what, body, buyer);
  expect(farmerReads.graphql.body.data.invite.user).toMatchObject(asStranger(feedlot.owner));

  // Each person, and their own organization's owner, sees the whole record.
  const own = await app.graphql(`query($e: UUID!) { animalsEgress(id: $e) { operator_user { ${USER} } } }`, { e: egress.id }, farm.owner.access);
  expect(own.body.data.animalsEgress.operator_user).toMatchObject({ str_email: farm.owner.email, str_document: farm.owner.document, str_phone: phones.get(farm.owner.user.id) });
});

test('the published schema lets a stranger see null: every personal field of User is nullable', async () => {
  const res = await app.graphql('{ __type(name: "User") { fields { name type { kind } } } }');
  const kinds = Object.fromEntries(res.body.data.__type.fields.map((f: { name: string; type: { kind: string } }) => [f.name, f.type.kind]));
  for (const field of ['str_email', 'str_document', 'str_phone', 'bl_admin', 'bl_verified', 'county_id', 'organization_id', 'ts_terms_accepted_at']) expect({ field, kind: kinds[field] }).not.toEqual({ field, kind: 'NON_NULL' });
  for (const field of ['id', 'str_name', 'str_type']) expect({ field, kind: kinds[field] }).toEqual({ field, kind: 'NON_NULL' });
});
