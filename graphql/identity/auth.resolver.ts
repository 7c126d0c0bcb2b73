import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { ChangeOrgInput, LoginInput, RecoveryRequestInput, RefreshInput, TokenPair, TokenPasswordInput } from './auth.type.js';
import { SelfUpdateInput, User } from './user.type.js';

type Out<T> = Promise<T>;
const asPair = (p: unknown) => p as TokenPair;
const asUser = (u: unknown) => u as User;

@Resolver()
export class AuthResolver {
  @Mutation(() => TokenPair)
  async login(@Arg('input', () => LoginInput, { nullable: true }) input: LoginInput | null, @Ctx() ctx: Context): Out<TokenPair> {
    return asPair(await ctx.core.auth.login(ctx.em, input ?? {}, ctx.address));
  }

  @Mutation(() => TokenPair)
  async refresh(@Arg('input', () => RefreshInput, { nullable: true }) input: RefreshInput | null, @Ctx() ctx: Context): Out<TokenPair> {
    return asPair(await ctx.core.auth.refresh(ctx.em, input?.refresh_token));
  }

  @Mutation(() => Boolean)
  async logout(@Ctx() ctx: Context): Out<boolean> {
    await ctx.core.auth.logout(ctx.em, requireActor(ctx));
    return true;
  }

  @Query(() => User)
  async whoami(@Ctx() ctx: Context): Out<User> {
    const actor = requireActor(ctx);
    return asUser(await ctx.core.users.get(ctx.em, actor, actor.userId));
  }

  @Mutation(() => User)
  async selfUpdate(@Arg('input', () => SelfUpdateInput, { nullable: true }) input: SelfUpdateInput | null, @Ctx() ctx: Context): Out<User> {
    return asUser(await ctx.core.users.selfUpdate(ctx.em, requireActor(ctx), input ?? {}));
  }

  @Mutation(() => TokenPair)
  async changeOrg(@Arg('input', () => ChangeOrgInput, { nullable: true }) input: ChangeOrgInput | null, @Ctx() ctx: Context): Out<TokenPair> {
    return asPair(await ctx.core.auth.changeOrg(ctx.em, requireActor(ctx), input?.organization_id));
  }

  @Mutation(() => TokenPair)
  async resetProfile(@Ctx() ctx: Context): Out<TokenPair> {
    return asPair(await ctx.core.auth.resetProfile(ctx.em, requireActor(ctx)));
  }

  @Mutation(() => Boolean, { description: 'Always true: whether the e-mail is known is never revealed.' })
  async requestRecoveryPassword(@Arg('input', () => RecoveryRequestInput, { nullable: true }) input: RecoveryRequestInput | null, @Ctx() ctx: Context): Out<boolean> {
    await ctx.core.auth.requestRecovery(ctx.em, input?.str_email);
    return true;
  }

  @Mutation(() => Boolean)
  async recoverPassword(@Arg('input', () => TokenPasswordInput, { nullable: true }) input: TokenPasswordInput | null, @Ctx() ctx: Context): Out<boolean> {
    await ctx.core.auth.recoverPassword(ctx.em, input?.str_token, input?.str_password);
    return true;
  }

  @Mutation(() => Boolean)
  async confirmRegistration(@Arg('input', () => TokenPasswordInput, { nullable: true }) input: TokenPasswordInput | null, @Ctx() ctx: Context): Out<boolean> {
    await ctx.core.auth.confirmRegistration(ctx.em, input?.str_token, input?.str_password);
    return true;
  }
}
