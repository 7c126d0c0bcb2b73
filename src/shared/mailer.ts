import nodemailer, { type Transporter } from 'nodemailer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from './ids.js';
import type { Logger } from './logger.js';
import { SentMessage, type SentMessageStatus } from './sent-message.entity.js';

export interface Mail {
  to: string;
  subject: string;
  /** What kind of message it is, kept for the audit when the body no longer says (PASSWORD_RECOVERY, ...). */
  template: string;
  body: string;
  /** Codes and tokens in the body: never at rest once mail leaves by SMTP, and only until `secretsExpireAt` in the outbox. */
  secrets?: string[];
  secretsExpireAt?: Date;
  /** Its sent_message id, when the caller chooses between mails stored under one id (one statement either way). */
  id?: string;
}

/** The row sent_message keeps of a mail (see Mailer.prepare). */
export interface KeptMail {
  id: string;
  str_to: string;
  str_subject: string;
  str_template: string;
  str_body: string;
  str_redacted_body: string | null;
  str_status: SentMessageStatus;
  ts_redact_at: Date | null;
}

/** Runs one statement outside any request's transaction (the service's own connection). */
export type Execute = (sql: string, params: unknown[]) => Promise<unknown>;

const REDACTED = '[redacted]';
const SWEEP_EVERY_MS = 60_000;

/**
 * The one way out for mail: SMTP when configured; always recorded in sent_message and logged.
 * With SMTP, sent_message keeps the message with every code redacted from the start, and its
 * delivery status (QUEUED, then SENT or FAILED). Without SMTP it is the development outbox a
 * developer reads codes from: the clear body stays until its codes expire, then the redacted one
 * replaces it (swept at start and every minute).
 */
export class Mailer {
  private readonly transport: Transporter | null;
  private execute: Execute | null = null;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly log: Logger,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  /**
   * Wired once the database is open (src/server.ts): delivery status and the outbox's sweep need it.
   * The sweep runs at start and every minute on a timer of its own, never inside a request (a
   * request that mails must run the same statements as one that does not: no enumeration by timing).
   */
  async useDatabase(execute: Execute): Promise<void> {
    this.execute = execute;
    await this.sweep();
    if (!this.transport) {
      this.sweeper = setInterval(() => void this.sweep(), SWEEP_EVERY_MS);
      this.sweeper.unref();
    }
  }

  /** Before the database closes. */
  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.execute = null;
  }

  /** Records the message in the caller's transaction; delivery happens after commit. */
  queue(em: EntityManager, mail: Mail): () => Promise<void> {
    const prepared = this.prepare(mail);
    em.persist(em.create(SentMessage, prepared.kept));
    return prepared.deliver;
  }

  /** What sent_message keeps of `mail`, and its delivery, for a caller that stores the message itself. */
  prepare(mail: Mail): { kept: KeptMail; deliver: () => Promise<void> } {
    const secrets = mail.secrets ?? [];
    const redacted = secrets.reduce((body, secret) => body.replaceAll(secret, REDACTED), mail.body);
    const outbox = !this.transport;
    const kept: KeptMail = {
      id: mail.id ?? newId(),
      str_to: mail.to,
      str_subject: mail.subject,
      str_template: mail.template,
      str_body: outbox ? mail.body : redacted,
      // The outbox keeps the clear body until the codes expire (an hour when the sender names no time).
      str_redacted_body: outbox && secrets.length ? redacted : null,
      str_status: outbox ? 'OUTBOX' : 'QUEUED',
      ts_redact_at: outbox && secrets.length ? (mail.secretsExpireAt ?? new Date(Date.now() + 3_600_000)) : null,
    };
    const deliver = async () => {
      if (!this.transport) {
        this.log.info({ to: mail.to, subject: mail.subject }, 'mail kept in sent_message (no SMTP configured)');
        return;
      }
      let status: SentMessageStatus = 'SENT';
      try {
        await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.body });
      } catch (err) {
        status = 'FAILED';
        this.log.error({ err, to: mail.to }, 'mail delivery failed');
      }
      await this.record(kept.id, status);
    };
    return { kept, deliver };
  }

  private async record(id: string, status: SentMessageStatus): Promise<void> {
    try {
      await this.execute?.('update sent_message set str_status = ?, ts_sent_at = now() where id = ?', [status, id]);
    } catch (err) {
      this.log.error({ err, id }, 'mail status not recorded');
    }
  }

  /** The outbox's expired codes redacted. */
  async sweep(): Promise<void> {
    try {
      await this.execute?.('update sent_message set str_body = str_redacted_body, str_redacted_body = null, ts_redact_at = null where ts_redact_at <= now()', []);
    } catch (err) {
      this.log.error({ err }, 'outbox sweep failed');
    }
  }
}
