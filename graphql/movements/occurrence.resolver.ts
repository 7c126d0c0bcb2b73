import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Occurrence as OccurrenceRow } from '../../src/movements/occurrence.entity.js';
import type { Paged } from '../../src/shared/pagination.js';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import { OCCURRENCE_NEEDS, Occurrence, OccurrenceCreateInput, OccurrencePage, OccurrenceResolutionInput } from './occurrence.type.js';
import { OCCURRENCE_SEARCH } from '../../src/movements/occurrence.reader.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => Occurrence)
export class OccurrenceResolver {
  @Query(() => Occurrence)
  async occurrence(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<OccurrenceRow> {
    return ctx.loaders.take(await ctx.core.occurrences.read(ctx.db, requireActor(ctx), id, includeOf(info, OCCURRENCE_NEEDS)));
  }

  @Query(() => OccurrencePage, { description: 'Occurrences at units the caller sees; filters: the record fields, ts_* ranges, establishment_id' })
  async occurrences(
    @Args(searchArgsOf('Occurrence', OCCURRENCE_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<OccurrenceRow>> {
    return ctx.loaders.takePage(await ctx.core.occurrences.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, OCCURRENCE_NEEDS)));
  }

  @Mutation(() => Occurrence, { description: 'Report an occurrence at a unit (TAG_LOST, ANIMAL_DEATH, THEFT, OTHER)' })
  createOccurrence(@Arg('input', () => OccurrenceCreateInput) input: OccurrenceCreateInput, @Ctx() ctx: Context): Promise<OccurrenceRow> {
    return ctx.core.occurrences.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Occurrence, { description: 'OPEN → RESOLVED with a resolution text (a THEFT resolved brings its MISSING animal back to ACTIVE)' })
  resolveOccurrence(@Arg('id', () => UUID) id: string, @Arg('input', () => OccurrenceResolutionInput) input: OccurrenceResolutionInput, @Ctx() ctx: Context): Promise<OccurrenceRow> {
    return ctx.core.occurrences.resolve(ctx.em, requireActor(ctx), id, input);
  }

  @Mutation(() => Occurrence, { description: 'OPEN → DISMISSED with a resolution text (a THEFT dismissed brings its MISSING animal back to ACTIVE)' })
  dismissOccurrence(@Arg('id', () => UUID) id: string, @Arg('input', () => OccurrenceResolutionInput) input: OccurrenceResolutionInput, @Ctx() ctx: Context): Promise<OccurrenceRow> {
    return ctx.core.occurrences.dismiss(ctx.em, requireActor(ctx), id, input);
  }
}
