import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { WriteoffReason } from './tag.rules.js';
import { TagsOperation } from './tags-operation.entity.js';

/** Tags taken out of service for good (tags_writeoff_tag lists them and the animals that ended). */
@Entity({ tableName: 'tags_writeoff' })
export class TagsWriteoff extends TagsOperation {
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  @Property({ type: 'text' })
  str_reason!: WriteoffReason;

  @Property({ type: 'text', nullable: true })
  str_reason_description: string | null = null;
}
