import nodemailer, { type Transporter } from 'nodemailer';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from './logger.js';
import { SentMessage } from './sent-message.entity.js';

export interface Mail {
  to: string;
  subject: string;
  body: string;
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

  /** Records the message in the caller's transaction; delivery happens after commit. */
  queue(em: EntityManager, mail: Mail): () => Promise<void> {
    em.persist(em.create(SentMessage, { str_to: mail.to, str_subject: mail.subject, str_body: mail.body }));
    return async () => {
      if (!this.transport) {
        this.log.info({ mail }, 'mail kept in sent_message (no SMTP configured)');
        return;
      }
      try {
        await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.body });
      } catch (err) {
        this.log.error({ err, to: mail.to }, 'mail delivery failed');
      }
    };
  }
}
