import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TagsOperation } from './tags-operation.entity.js';

/** Available tags of a unit held for an operator; its tags carry tags_reservation_id while RESERVED. */
@Entity({ tableName: 'tags_reservation' })
export class TagsReservation extends TagsOperation {
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  @Property({ type: 'text' })
  str_name!: string;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_label: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_begin: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_finish: string | null = null;

  /** How many tags were reserved. */
  @Property({ type: 'integer' })
  int_quantity!: number;

  @Property({ type: 'text' })
  str_status: Opt<'ACTIVE' | 'RELEASED' | 'USED'> = 'ACTIVE';
}
