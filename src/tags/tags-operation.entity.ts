import { Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/** What every tag operation records: where, by whom, and the device's clock when it was made offline. */
export abstract class TagsOperation extends BaseEntity {
  @Property({ type: 'uuid', nullable: true })
  operator_user_id: string | null = null;

  /** The device's clock: stored as given, never used for order. */
  @Property({ type: 'timestamptz', nullable: true })
  ts_unsafe_client_created_at: Date | null = null;
}
