import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver, Args } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf, pageLookahead } from '../lookahead.js';
import { PageInput } from '../shared/pagination.type.js';
import { UUID } from '../shared/scalars.js';
import type { User as UserEntity } from '../../src/identity/user.entity.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import type { Paged } from '../../src/shared/pagination.js';
import { USER_NEEDS, User, UserCreateInput, UserPage, UserUpdateInput } from './user.type.js';
import { USER_SEARCH } from '../../src/identity/user.service.js';
import { filtersOf, searchArgsOf, type SearchArgs } from '../shared/search-args.js';

@Resolver(() => User)
export class UserResolver {
  @Query(() => User)
  async user(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Promise<UserRow> {
    return ctx.loaders.take(await ctx.core.users.read(ctx.db, requireActor(ctx), id, includeOf(info, USER_NEEDS)));
  }

  @Query(() => UserPage, { description: 'Users the caller may see; filters as in CONTRACT.md "Search bodies".' })
  async users(
    @Args(searchArgsOf('User', USER_SEARCH)) search: SearchArgs,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Paged<UserRow>> {
    return ctx.loaders.takePage(await ctx.core.users.page(ctx.db, requireActor(ctx), filtersOf(search), page, pageLookahead(info, USER_NEEDS)));
  }

  @Mutation(() => User)
  async createUser(@Arg('input', () => UserCreateInput) input: UserCreateInput, @Ctx() ctx: Context): Promise<UserEntity> {
    return ctx.core.users.create(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => User)
  async updateUser(@Arg('id', () => UUID) id: string, @Arg('input', () => UserUpdateInput) input: UserUpdateInput, @Ctx() ctx: Context): Promise<UserEntity> {
    return ctx.core.users.update(ctx.em, requireActor(ctx), id, input);
  }
}
