import type { Opt } from '@mikro-orm/core';
import { PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from './ids.js';

/** Every record: a uuid, the server's creation time and its last change. */
export abstract class BaseEntity {
  @PrimaryKey({ type: 'uuid' })
  id: string = newId();

  @Property({ type: 'timestamptz' })
  ts_created_at: Opt<Date> = new Date();

  @Property({ type: 'timestamptz', onUpdate: () => new Date() })
  ts_updated_at: Opt<Date> = new Date();
}
