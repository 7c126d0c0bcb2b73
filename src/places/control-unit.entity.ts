import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/** A livestock holding inside an establishment: the unit a GTA is issued for. Its code is unique service-wide. */
@Entity({ tableName: 'control_unit' })
export class ControlUnit extends BaseEntity {
  @Property({ type: 'uuid' })
  establishment_id!: string;

  @Property({ type: 'text' })
  str_code!: string;

  @Property({ type: 'text' })
  str_name!: string;

  @Property({ type: 'text' })
  str_type!: string;

  @Property({ type: 'text', nullable: true })
  str_predominant_phase: string | null = null;

  @Property({ type: 'text', nullable: true })
  str_predominant_system: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  responsible_user_id: string | null = null;
}
