import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime, UUID } from '../shared/scalars.js';

@ObjectType('HomeStatusCount', { description: 'How many records of the organization are in one status' })
export class HomeStatusCount {
  @Field(() => String) str_status!: string;
  @Field(() => Int) int_count!: number;
}

@ObjectType('Home', { description: 'The counts of the active organization (none: every count 0), counted in one statement' })
export class Home {
  @Field(() => UUID, { nullable: true, description: 'The active organization; null on the personal profile' }) organization_id!: string | null;
  @Field(() => Int, { description: 'Animals whose last control unit is one of the organization' }) int_animals!: number;
  @Field(() => [HomeStatusCount], { description: 'Every animal status, in order, 0 where none' }) animals_by_status!: HomeStatusCount[];
  @Field(() => Int) int_establishments!: number;
  @Field(() => Int) int_control_units!: number;
  @Field(() => Int, { description: 'Tags whose last control unit is one of the organization' }) int_tags!: number;
  @Field(() => [HomeStatusCount], { description: 'Every tag status, in order, 0 where none' }) tags_by_status!: HomeStatusCount[];
  @Field(() => Int, { description: 'OPEN animals egresses from its units' }) int_open_animals_egresses!: number;
  @Field(() => Int, { description: 'OPEN animals ingresses to its units' }) int_open_animals_ingresses!: number;
  @Field(() => Int, { description: 'int_open_animals_egresses + int_open_animals_ingresses' }) int_open_movements!: number;
  @Field(() => Int, { description: 'Invites of the organization neither accepted, revoked nor expired' }) int_pending_invites!: number;
  @Field(() => Int, { description: 'OPEN occurrences at its units' }) int_open_occurrences!: number;
  @Field(() => DateTime, { description: "The database's clock when counted" }) ts_counted_at!: Date;
}
