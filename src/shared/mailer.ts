import nodemailer, { type Transporter } from 'nodemailer';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from './logger.js';
import { SentMessage } from './sent-message.entity.js';

export interface Mail {
  to: string;
  subject: string;
  body: string;
  /** Codes and tokens in the body: kept out of sent_message once mail really leaves by SMTP. */
  secrets?: string[];
}

/** The one way out for mail: SMTP when configured; always kept in sent_messages and logged. */
export class Mailer {
  private readonly transport: Transporter | null;

  constructor(
    smtpUrl: string | undefined,
    private readonly from: string,
    private readonly log: Logger,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  /**
   * Records the message in the caller's transaction; delivery happens after commit. Without SMTP,
   * sent_message is the development outbox a developer reads codes from; with SMTP it keeps what
   * was sent with every code redacted, so no usable code rests in the database.
   */
  queue(em: EntityManager, mail: Mail): () => Promise<void> {
    const prepared = this.prepare(mail);
    em.persist(em.create(SentMessage, { str_to: mail.to, str_subject: mail.subject, str_body: prepared.kept }));
    return prepared.deliver;
  }

  /** What sent_message keeps of `mail` (see queue), and its delivery, for a caller that stores the message itself. */
  prepare(mail: Mail): { kept: string; deliver: () => Promise<void> } {
    const kept = this.transport ? (mail.secrets ?? []).reduce((body, secret) => body.replaceAll(secret, '[redacted]'), mail.body) : mail.body;
    const deliver = async () => {
      if (!this.transport) {
        this.log.info({ to: mail.to, subject: mail.subject }, 'mail kept in sent_message (no SMTP configured)');
        return;
      }
      try {
        await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.body });
      } catch (err) {
        this.log.error({ err, to: mail.to }, 'mail delivery failed');
      }
    };
    return { kept, deliver };
  }
}
