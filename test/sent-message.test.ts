import { useApp, type TestApp } from './helpers/app.js';
import { rows } from './helpers/db.js';
import { makeUser } from './helpers/factories.js';

/**
 * Codes at rest (issue 21): sent_message keeps recipient, template, time and delivery status, and no
 * usable code once the mail was delivered (SMTP) or its code expired (the outbox without SMTP).
 */
interface Kept {
  str_to: string;
  str_template: string;
  str_status: string;
  str_body: string;
  str_redacted_body: string | null;
  ts_redact_at: Date | null;
  ts_sent_at: Date | null;
  ts_created_at: Date;
}
const TOKEN = /[A-Za-z0-9_-]{20,}/;
const keptFor = async (app: TestApp, to: string) => (await rows<Kept>(app, 'select * from sent_message where lower(str_to) = lower(?) order by ts_created_at', [to]))[0]!;

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  return read();
}

describe('the development outbox (no SMTP)', () => {
  const app = useApp();

  test('keeps the code readable until it expires, then only the redacted message', async () => {
    const person = await makeUser(app);
    expect((await app.call('POST', '/api/request-recovery-password', { body: { str_email: person.email } })).status).toBe(204);
    const fresh = await keptFor(app, person.email);
    expect(fresh).toMatchObject({ str_template: 'PASSWORD_RECOVERY', str_status: 'OUTBOX', ts_sent_at: null });
    expect(fresh.str_body).toMatch(TOKEN);
    expect(fresh.str_redacted_body).toContain('[redacted]');
    expect(fresh.str_redacted_body).not.toMatch(TOKEN);
    // The recovery code lives an hour; so does its clear copy.
    expect(new Date(fresh.ts_redact_at!).getTime() - new Date(fresh.ts_created_at).getTime()).toBeGreaterThan(59 * 60_000);

    // The hour passes; the minute's sweep (run here rather than waited for) redacts it.
    await rows(app, "update sent_message set ts_redact_at = now() - interval '1 second' where lower(str_to) = lower(?)", [person.email]);
    await app.service.core.mailer.sweep();
    const expired = await keptFor(app, person.email);
    expect(expired).toMatchObject({ str_to: person.email, str_template: 'PASSWORD_RECOVERY', str_status: 'OUTBOX', str_redacted_body: null, ts_redact_at: null });
    expect(expired.str_body).toContain('[redacted]');
    expect(expired.str_body).not.toMatch(TOKEN);
  });
});

describe('with SMTP configured', () => {
  // Nothing listens there: every delivery fails, and says so.
  const app = useApp({ SMTP_URL: 'smtp://127.0.0.1:1' });

  test('no code is ever at rest; the delivery status is recorded', async () => {
    const person = await makeUser(app);
    expect((await app.call('POST', '/api/request-recovery-password', { body: { str_email: person.email } })).status).toBe(204);
    const kept = await until(() => keptFor(app, person.email), (k) => k.str_status !== 'QUEUED');
    expect(kept).toMatchObject({ str_template: 'PASSWORD_RECOVERY', str_status: 'FAILED', str_redacted_body: null, ts_redact_at: null });
    expect(kept.ts_sent_at).not.toBeNull();
    expect(kept.str_body).toContain('[redacted]');
    expect(kept.str_body).not.toMatch(TOKEN);
  });
});
