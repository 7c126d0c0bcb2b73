import { Migration } from '@mikro-orm/migrations';

export class Migration0011CreateResponses extends Migration {
  override async up(): Promise<void> {
    // The first answer of each REST create with a client id (src/shared/create-replay.ts), replayed as it was.
    this.addSql(`create table create_response (
        str_caller text not null,
        str_path text not null,
        record_id uuid not null,
        str_body_hash text not null,
        num_status integer not null,
        str_response text not null,
        ts_created_at timestamptz not null default now(),
        primary key (str_caller, str_path, record_id)
      )`);
  }
}
