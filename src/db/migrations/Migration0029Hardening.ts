import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 21's hardening. sent_message keeps what an audit needs (recipient, template, time, delivery
 * status) and no usable code: with SMTP the body is stored redacted from the start; without SMTP
 * (the development outbox a developer reads codes from) the redacted body waits beside the clear
 * one until the codes expire (ts_redact_at), when it replaces it (src/shared/mailer.ts).
 */
export class Migration0029Hardening extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table sent_message
        add column str_template text not null default 'OTHER',
        add column str_status text not null default 'OUTBOX' check (str_status in ('OUTBOX', 'QUEUED', 'SENT', 'FAILED')),
        add column ts_sent_at timestamptz null,
        add column ts_redact_at timestamptz null,
        add column str_redacted_body text null`);
    // The sweep finds the bodies whose codes expired without reading the outbox.
    this.addSql('create index sent_message_redact on sent_message (ts_redact_at) where ts_redact_at is not null');
  }
}
