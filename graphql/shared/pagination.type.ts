import { Field, InputType, Int, ObjectType } from 'type-graphql';

@InputType()
export class PageInput {
  @Field(() => Int, { nullable: true })
  int_current_page?: number;

  @Field(() => Int, { nullable: true })
  int_max_results?: number;
}

@ObjectType()
export class PaginationMeta {
  @Field(() => Int)
  int_current_page!: number;

  @Field(() => Int)
  int_max_results!: number;

  @Field(() => Int)
  int_total_results!: number;

  @Field(() => Int)
  int_total_pages!: number;
}
