import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from './ids.js';

@Entity({ tableName: 'sent_message' })
export class SentMessage {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'text' })
  str_to!: string;

  @Property({ type: 'text' })
  str_subject!: string;

  @Property({ type: 'text' })
  str_body!: string;

  @Property({ type: 'timestamptz' })
  ts_created_at: Opt<Date> = new Date();
}
