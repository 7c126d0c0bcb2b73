import { Migration } from '@mikro-orm/migrations';

export class Migration0005IdempotencyKeys extends Migration {
  override async up(): Promise<void> {
    // One row per caller and Idempotency-Key (src/shared/idempotency.ts). num_status is null while the
    // first request runs; the response body is kept as the JSON text that was sent, byte for byte.
    this.addSql(`create table idempotency_key (
        str_caller text not null,
        str_key text not null check (length(str_key) between 1 and 255),
        str_method text not null,
        str_path text not null,
        str_body_hash text not null,
        num_status integer null,
        str_response text null,
        ts_created_at timestamptz not null default now(),
        primary key (str_caller, str_key)
      )`);
    // Expired rows are overwritten in place; this index lets a periodic purge find them.
    this.addSql('create index idempotency_key_created on idempotency_key (ts_created_at)');
  }
}
