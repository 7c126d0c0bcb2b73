import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { TagsBoxStatus } from './tag.rules.js';

/** A supplier's box: one contiguous range of codes, moving between units as a whole. */
@Entity({ tableName: 'tags_box' })
export class TagsBox extends BaseEntity {
  @Property({ type: 'text' })
  str_code!: string;

  @Property({ type: 'text' })
  str_begin!: string;

  @Property({ type: 'text' })
  str_finish!: string;

  @Property({ type: 'integer' })
  int_quantity!: number;

  @Property({ type: 'text' })
  str_status!: TagsBoxStatus;

  @Property({ type: 'uuid' })
  control_unit_id!: string;
}
