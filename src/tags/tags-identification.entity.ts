import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TagsOperation } from './tags-operation.entity.js';

/** One batch of animals identified at a unit (the animals carry tags_identification_id). */
@Entity({ tableName: 'tags_identification' })
export class TagsIdentification extends TagsOperation {
  @Property({ type: 'uuid' })
  control_unit_id!: string;

  @Property({ type: 'integer' })
  int_animal_count!: number;
}
