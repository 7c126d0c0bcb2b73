import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/** One published version of the privacy policy and terms of use; the latest published is the current one. */
@Entity({ tableName: 'privacy_terms' })
export class PrivacyTerms extends BaseEntity {
  @Property({ type: 'text' })
  str_version!: string;

  @Property({ type: 'text' })
  str_text!: string;

  @Property({ type: 'uuid', nullable: true })
  publisher_user_id: string | null = null;

  @Property({ type: 'timestamptz' })
  ts_published_at: Opt<Date> = new Date();
}
