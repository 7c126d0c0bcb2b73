import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

@Entity({ tableName: 'organization' })
export class Organization extends BaseEntity {
  @Property({ type: 'text' })
  str_name!: string;

  @Property({ type: 'text' })
  str_document!: string;
}
