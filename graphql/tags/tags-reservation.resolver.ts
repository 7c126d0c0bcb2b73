import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Field, Info, InputType, Int, Mutation, Query, Resolver, Args } from 'type-graphql';
import type { Paged } from '../../src/shared/pagination.js';
import type { TagsReservation as TagsReservationRow } from '../../src/tags/tags-reservation.entity.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { TAGS_RESERVATION_NEEDS, TagsReservation, TagsReservationPage } from './tag.type.js';
import { TAGS_RESERVATION_SEARCH } from '../../src/tags/tags-reservation.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@InputType('TagsReservationCreateItemInput', { description: 'One reservation: a range (str_begin..str_finish) or the int_quantity lowest available codes of the unit' })
export class TagsReservationCreateItemInput {
  @Field(() => UUID, { nullable: true, description: 'Client-generated id: the same id and body again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: 'Required: a unit of the active organization' }) control_unit_id?: string;
  @Field(() => String, { nullable: true, description: 'Who the tags are held for (default: the caller)' }) operator_user_id?: string;
  @Field(() => Int, { nullable: true, description: 'Without a range: how many of the lowest available codes; with one, its size' }) int_quantity?: number;
  @Field(() => String, { nullable: true, description: 'First code of the range (with str_finish): every code must be AVAILABLE at the unit' }) str_begin?: string;
  @Field(() => String, { nullable: true }) str_finish?: string;
  @Field(() => String, { nullable: true, description: 'Required' }) str_name?: string;
  @Field(() => String, { nullable: true }) str_description?: string;
  @Field(() => String, { nullable: true }) str_label?: string;
  @Field(() => DateTime, { nullable: true }) ts_unsafe_client_created_at?: Date;
}

@InputType('TagsReservationCreateInput', { description: 'Tags Reservation Create: several reservations, all or nothing' })
export class TagsReservationCreateInput {
  @Field(() => [TagsReservationCreateItemInput], { nullable: true }) reservations?: TagsReservationCreateItemInput[];
}

@Resolver(() => TagsReservation)
export class TagsReservationResolver {
  @Query(() => TagsReservation)
  async tagsReservation(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<TagsReservationRow> {
    return ctx.loaders.take(await ctx.core.tagsReservations.read(ctx.db, requireActor(ctx), id, includeOf(info, TAGS_RESERVATION_NEEDS)));
  }

  @Query(() => TagsReservationPage)
  async tagsReservations(
    @Args(searchArgsOf('TagsReservation', TAGS_RESERVATION_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<TagsReservationRow>> {
    return ctx.loaders.takePage(await ctx.core.tagsReservations.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, TAGS_RESERVATION_NEEDS)));
  }

  @Mutation(() => [TagsReservation], { description: 'Reserves AVAILABLE tags (→ RESERVED): every reservation of the body or none; returned in body order' })
  createTagsReservations(@Arg('input', () => TagsReservationCreateInput) input: TagsReservationCreateInput, @Ctx() ctx: Context): Promise<TagsReservationRow[]> {
    return ctx.core.tagsReservations.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => TagsReservation, { description: 'ACTIVE → RELEASED: its still-reserved tags become AVAILABLE' })
  releaseTagsReservation(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<TagsReservationRow> {
    return ctx.core.tagsReservations.release(ctx.em, requireActor(ctx), id);
  }
}
