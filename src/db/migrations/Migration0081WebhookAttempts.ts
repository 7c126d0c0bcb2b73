import { Migration } from '@mikro-orm/migrations';

/**
 * Every attempt of a webhook delivery kept in its log (issue 38; docs/decisions/events-out.md): when,
 * the HTTP status (null when no answer came), the error, how long it took. A delivery that succeeded
 * after retries keeps what failed before. The newest 50 are kept (src/outbox/webhook.sender.ts).
 */
export class Migration0081WebhookAttempts extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table webhook_delivery add column attempts jsonb not null default '[]'");
  }
}
