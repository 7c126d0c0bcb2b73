import { Migration } from '@mikro-orm/migrations';

/**
 * Attachments (DOMAIN.md, "Occurrences, attachments, history"): a file's metadata and the one record
 * it hangs from. The bytes live in the attachment store (disk or an S3 bucket) under the row's id.
 */
export class Migration0023Attachments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table attachment (
        id uuid primary key,
        str_record_type text not null check (str_record_type in ('GTA','ANIMALS_EGRESS','ANIMALS_INGRESS','OCCURRENCE','ANIMAL','ESTABLISHMENT')),
        record_id uuid not null,
        str_file_name text not null check (str_file_name <> '' and length(str_file_name) <= 255),
        str_content_type text not null check (str_content_type in ('application/pdf','image/jpeg','image/png','image/webp')),
        int_size_bytes integer not null check (int_size_bytes > 0 and int_size_bytes <= 10485760),
        str_sha256 text not null check (str_sha256 ~ '^[0-9a-f]{64}$'),
        author_user_id uuid not null references "user" (id) deferrable initially deferred,
        ts_created_at timestamptz not null default now(),
        ts_updated_at timestamptz not null default now()
      )`);
    // A record's attachments, newest first (the default order of a page).
    this.addSql('create index attachment_record on attachment (record_id, ts_created_at desc, id desc)');
    this.addSql('create index attachment_created on attachment (ts_created_at desc, id desc)');
  }
}
