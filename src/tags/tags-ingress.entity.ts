import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TagsOperation } from './tags-operation.entity.js';

/** Boxes arriving at a unit, from a supplier or a tags egress; each box evaluated (tags_ingress_box). */
@Entity({ tableName: 'tags_ingress' })
export class TagsIngress extends TagsOperation {
  @Property({ type: 'uuid' })
  to_control_unit_id!: string;

  @Property({ type: 'uuid', nullable: true })
  tags_egress_id: string | null = null;

  @Property({ type: 'text' })
  str_status: Opt<'PENDING' | 'EVALUATED' | 'PARTIALLY_ACCEPTED'> = 'PENDING';

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_label: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  ts_evaluated_at: Date | null = null;
}
