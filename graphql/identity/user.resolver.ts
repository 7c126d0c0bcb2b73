import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { PageInput } from '../shared/pagination.type.js';
import { JSONObject, UUID } from '../shared/scalars.js';
import { User, UserCreateInput, UserPage, UserUpdateInput } from './user.type.js';

@Resolver(() => User)
export class UserResolver {
  @Query(() => User)
  async user(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<User> {
    return (await ctx.core.users.get(ctx.em, requireActor(ctx), id)) as unknown as User;
  }

  @Query(() => UserPage, { description: 'Users the caller may see; filters as in CONTRACT.md "Search bodies".' })
  async users(
    @Arg('filter', () => JSONObject, { nullable: true }) filter: Record<string, unknown> | null,
    @Arg('page', () => PageInput, { nullable: true }) page: PageInput | null,
    @Ctx() ctx: Context,
  ): Promise<UserPage> {
    return (await ctx.core.users.search(ctx.em, requireActor(ctx), filter, page)) as unknown as UserPage;
  }

  @Mutation(() => User)
  async createUser(@Arg('input', () => UserCreateInput) input: UserCreateInput, @Ctx() ctx: Context): Promise<User> {
    return (await ctx.core.users.create(ctx.em, requireActor(ctx), input)) as unknown as User;
  }

  @Mutation(() => User)
  async updateUser(@Arg('id', () => UUID) id: string, @Arg('input', () => UserUpdateInput) input: UserUpdateInput, @Ctx() ctx: Context): Promise<User> {
    return (await ctx.core.users.update(ctx.em, requireActor(ctx), id, input)) as unknown as User;
  }
}
