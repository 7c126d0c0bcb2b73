import { Field, ObjectType } from 'type-graphql';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';

@ObjectType('County', { description: 'An IBGE municipality' })
export class County {
  @Field(() => UUID) id!: string;
  @Field(() => String, { description: '7 digits, the last a check digit' }) str_ibge_code!: string;
  @Field(() => String) str_name!: string;
  @Field(() => String, { description: 'UF, two letters' }) str_federative_unit!: string;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('CountyPage')
export class CountyPage {
  @Field(() => [County]) data!: County[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}
