import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/** An integrator's endpoint (issue 24): what it receives, signed with its secret (Standard Webhooks). */
@Entity({ tableName: 'webhook_endpoint' })
export class WebhookEndpoint extends BaseEntity {
  /** Its owner: it receives only the records this user may read, in `organization_id` (its active organization at creation). */
  @Property({ type: 'uuid' })
  user_id!: string;

  @Property({ type: 'uuid', nullable: true })
  organization_id: string | null = null;

  @Property({ type: 'text' })
  str_url!: string;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  /** `whsec_` and base64: shown once, at creation. */
  @Property({ type: 'text', hidden: true })
  str_secret!: string;

  /** Empty: every type. */
  @Property({ type: 'text[]' })
  str_event_types: Opt<string[]> = [];

  @Property({ type: 'text[]' })
  str_record_types: Opt<string[]> = [];

  @Property({ type: 'uuid[]' })
  record_ids: Opt<string[]> = [];

  @Property({ type: 'boolean' })
  bl_active: Opt<boolean> = true;

  @Property({ type: 'timestamptz', nullable: true })
  ts_deleted_at: Date | null = null;
}
