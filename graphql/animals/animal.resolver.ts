import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Field, Info, InputType, Int, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Animal as AnimalRow } from '../../src/animals/animal.entity.js';
import type { HistoryEntry } from '../../src/shared/history.js';
import type { Paged } from '../../src/shared/pagination.js';
import { pickOf } from '../columns.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { AnimalGenderEnum, AnimalSpeciesEnum } from '../tags/enums.js';
import { ANIMAL_NEEDS, Animal, AnimalHistoryPage, AnimalPage } from './animal.type.js';
import { ANIMAL_SEARCH } from '../../src/animals/animal.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@InputType('AnimalUpdateInput', { description: 'Corrections to what identification recorded; never the status, tag or place (each field optional)' })
export class AnimalUpdateInput {
  @Field(() => AnimalSpeciesEnum, { nullable: true }) str_species?: string;
  @Field(() => AnimalGenderEnum, { nullable: true }) str_gender?: string;
  @Field(() => DateTime, { nullable: true, description: 'Not in the future, not after ts_identified_at' }) ts_born_date?: Date;
  @Field(() => Int, { nullable: true }) int_age_months_at_identification?: number;
  @Field(() => Int, { nullable: true }) int_weight_kilos_at_identification?: number;
  @Field(() => String, { nullable: true, description: 'Unique' }) str_rod_code?: string;
  @Field(() => String, { nullable: true }) str_extra_tag?: string;
  @Field(() => String, { nullable: true }) str_name?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
}

@Resolver(() => Animal)
export class AnimalResolver {
  @Query(() => Animal)
  async animal(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<AnimalRow> {
    return ctx.loaders.take(await ctx.core.animals.read(ctx.db, requireActor(ctx), id, includeOf(info, ANIMAL_NEEDS), pickOf(info)));
  }

  @Query(() => AnimalPage)
  async animals(
    @Args(searchArgsOf('Animal', ANIMAL_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<AnimalRow>> {
    return ctx.loaders.takePage(await ctx.core.animals.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, ANIMAL_NEEDS)));
  }

  @Query(() => AnimalHistoryPage, { description: "The animal's events, oldest first by when they happened" })
  async animalHistory(@Arg('id', () => UUID) id: string, @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null, @Ctx() ctx: Context): Promise<Paged<HistoryEntry>> {
    return ctx.core.animals.history(ctx.db, requireActor(ctx), id, page);
  }

  @Mutation(() => Animal)
  async updateAnimal(@Arg('id', () => UUID) id: string, @Arg('input', () => AnimalUpdateInput) input: AnimalUpdateInput, @Ctx() ctx: Context): Promise<AnimalRow> {
    return ctx.core.animals.update(ctx.em, requireActor(ctx), id, input);
  }
}
