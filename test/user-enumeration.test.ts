import { performance } from 'node:perf_hooks';
import { useApp, type Reply } from './helpers/app.js';
import { cpf, email, makeUser, member } from './helpers/factories.js';

/**
 * CONTRACT.md, Accounts: inviting a person (POST /api/users) tells nothing about whether the
 * address or CPF already has an account: not the status, the body, an error, the SQL the request
 * runs nor its time.
 */
const app = useApp();

const ROUNDS = 40;

interface Sample {
  status: number;
  body: string;
  sql: number;
  ms: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Mann-Whitney U's z for two samples (ties averaged): near 0 when neither tends to be larger. */
function rankZ(a: number[], b: number[]): number {
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(all.length);
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    for (let k = i; k <= j; k++) ranks[k] = (i + j) / 2 + 1;
    i = j + 1;
  }
  const rankSumA = all.reduce((sum, x, i) => (x.g === 0 ? sum + ranks[i]! : sum), 0);
  const u = rankSumA - (a.length * (a.length + 1)) / 2;
  const mean = (a.length * b.length) / 2;
  const sd = Math.sqrt((a.length * b.length * (a.length + b.length + 1)) / 12);
  return (u - mean) / sd;
}

async function invite(token: string, body: Record<string, unknown>): Promise<Sample> {
  const started = performance.now();
  const res: Reply = await app.call('POST', '/api/users', { token, body });
  const ms = performance.now() - started;
  return { status: res.status, body: JSON.stringify({ ...res.body, data: res.body?.data ? { ...res.body.data, str_email: '<sent>' } : undefined }), sql: res.sql, ms };
}

test('a new address and an existing account get the same answer, run the same SQL and take the same time', async () => {
  const owner = await member(app);
  const existing = await Promise.all(Array.from({ length: ROUNDS }, () => makeUser(app)));
  const fresh: Sample[] = [];
  const known: Sample[] = [];
  // Interleaved, so a slow moment of the machine falls on both alike.
  for (let i = 0; i < ROUNDS; i++) {
    const pair = [
      () => invite(owner.access, { str_name: 'Pessoa Nova', str_email: email('fresh'), str_document: cpf() }),
      () => invite(owner.access, { str_name: 'Pessoa Nova', str_email: existing[i]!.email.toUpperCase(), str_document: cpf() }),
    ];
    const first = i % 2;
    const a = await pair[first]!();
    const b = await pair[1 - first]!();
    (first === 0 ? fresh : known).push(a);
    (first === 0 ? known : fresh).push(b);
  }
  const answers = new Set([...fresh, ...known].map((s) => `${s.status} ${s.body}`));
  expect([...answers]).toEqual(['202 {"data":{"str_status":"INVITED","str_email":"<sent>"}}']);
  // The machine-independent part: the same statements, every time.
  expect(new Set(fresh.map((s) => s.sql))).toEqual(new Set(known.map((s) => s.sql)));
  expect(new Set([...fresh, ...known].map((s) => s.sql)).size).toBe(1);
  // Time: loose, for 2 loaded cores; a branch that did less work (no account made, no mail) shows here.
  const [mFresh, mKnown] = [median(fresh.map((s) => s.ms)), median(known.map((s) => s.ms))];
  expect({ ratio: Math.max(mFresh, mKnown) / Math.min(mFresh, mKnown) < 1.5 || Math.abs(mFresh - mKnown) < 3, mFresh, mKnown }).toMatchObject({ ratio: true });
  const z = rankZ(fresh.map((s) => s.ms), known.map((s) => s.ms));
  expect({ z, far: Math.abs(z) > 4 }).toMatchObject({ far: false });
});

test('an existing CPF under a new address, and an account not yet confirmed, answer and run as a new address', async () => {
  const owner = await member(app);
  const byCpf = await makeUser(app);
  const unconfirmed = await makeUser(app, { confirmed: false });
  const samples = [
    await invite(owner.access, { str_name: 'Pessoa', str_email: email('fresh'), str_document: cpf() }),
    await invite(owner.access, { str_name: 'Pessoa', str_email: email('fresh'), str_document: byCpf.document }),
    await invite(owner.access, { str_name: 'Pessoa', str_email: unconfirmed.email, str_document: cpf() }),
  ];
  expect(new Set(samples.map((s) => `${s.status} ${s.body} ${s.sql}`)).size).toBe(1);
});

test('bad input answers the same whether the address has an account', async () => {
  const owner = await member(app);
  const existing = await makeUser(app);
  for (const bad of [{ str_type: 'WIZARD' }, { str_document: '111.111.111-11' }, { str_name: ' ' }, { str_role: 'KING' }]) {
    const fresh = await invite(owner.access, { str_name: 'Pessoa', str_email: email('fresh'), str_document: cpf(), ...bad });
    const known = await invite(owner.access, { str_name: 'Pessoa', str_email: existing.email, str_document: cpf(), ...bad });
    expect({ status: known.status, body: known.body, sql: known.sql }).toEqual({ status: fresh.status, body: fresh.body, sql: fresh.sql });
    expect(fresh.status).toBe(422);
  }
});
