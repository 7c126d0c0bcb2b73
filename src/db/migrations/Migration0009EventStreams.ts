import { Migration } from '@mikro-orm/migrations';

export class Migration0009EventStreams extends Migration {
  override async up(): Promise<void> {
    // From here on each record's events are a chain of their own (src/shared/events.ts): writers of
    // different records never wait for each other. Events before this migration keep the one
    // service-wide chain they were written in (bl_record_chain false), verified as such.
    this.addSql('alter table event add column bl_record_chain boolean not null default false');
    this.addSql('alter table event alter column bl_record_chain set default true');
  }
}
