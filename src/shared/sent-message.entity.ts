import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from './ids.js';

/** OUTBOX: kept for a developer, no SMTP; QUEUED → SENT | FAILED through SMTP. */
export type SentMessageStatus = 'OUTBOX' | 'QUEUED' | 'SENT' | 'FAILED';

/** A mail the service sent (src/shared/mailer.ts): what an audit needs, and no code once it was delivered or expired. */
@Entity({ tableName: 'sent_message' })
export class SentMessage {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'text' })
  str_to!: string;

  @Property({ type: 'text' })
  str_subject!: string;

  @Property({ type: 'text' })
  str_template!: string;

  @Property({ type: 'text' })
  str_body!: string;

  @Property({ type: 'text', nullable: true })
  str_redacted_body: string | null = null;

  @Property({ type: 'text' })
  str_status!: SentMessageStatus;

  @Property({ type: 'timestamptz', nullable: true })
  ts_sent_at: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_redact_at: Date | null = null;

  @Property({ type: 'timestamptz' })
  ts_created_at: Opt<Date> = new Date();
}
