import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';

/** An IBGE municipality: reference data loaded by `counties:import`, read by every signed-in user. */
@Entity({ tableName: 'county' })
export class County extends BaseEntity {
  /** 7 digits, the last a check digit (see ibge.ts). */
  @Property({ type: 'text' })
  str_ibge_code!: string;

  @Property({ type: 'text' })
  str_name!: string;

  /** The UF's two letters (SP, MG, ...). */
  @Property({ type: 'text' })
  str_federative_unit!: string;
}
