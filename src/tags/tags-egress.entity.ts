import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TagsOperation } from './tags-operation.entity.js';

/** Boxes sent from one unit to another (tags_egress_box); received by the destination's ingress. */
@Entity({ tableName: 'tags_egress' })
export class TagsEgress extends TagsOperation {
  @Property({ type: 'uuid' })
  from_control_unit_id!: string;

  @Property({ type: 'uuid' })
  to_control_unit_id!: string;

  @Property({ type: 'text' })
  str_type!: 'TRANSFER' | 'RETURN';

  @Property({ type: 'text' })
  str_status: Opt<'SENT' | 'RECEIVED' | 'CANCELLED'> = 'SENT';
}
