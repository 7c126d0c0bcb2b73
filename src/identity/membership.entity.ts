import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

export const ROLES = ['OWNER', 'MANAGER', 'OPERATOR', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

@Entity({ tableName: 'membership' })
export class Membership extends BaseEntity {
  @Property({ type: 'uuid' })
  user_id!: string;

  @Property({ type: 'uuid' })
  organization_id!: string;

  @Property({ type: 'text' })
  str_role!: Role;
}
