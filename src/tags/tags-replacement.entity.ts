import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TagsOperation } from './tags-operation.entity.js';

/** Applied tags replaced by available ones of the same unit (tags_replacement_tag: animal, old, new, reason). */
@Entity({ tableName: 'tags_replacement' })
export class TagsReplacement extends TagsOperation {
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  @Property({ type: 'text', nullable: true })
  str_description: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_label: string | null = null;
}
