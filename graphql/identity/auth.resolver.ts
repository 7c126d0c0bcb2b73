import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Info, Mutation, Query, Resolver } from 'type-graphql';
import { requireActor, type Context } from '../context.js';
import { includeOf } from '../lookahead.js';
import type { TokenPair as TokenPairRow } from '../../src/identity/auth.service.js';
import type { User as UserEntity } from '../../src/identity/user.entity.js';
import type { UserRow } from '../../src/identity/user.reader.js';
import { ChangeOrgInput, LoginInput, RecoveryRequestInput, RefreshInput, TokenPair, TokenPasswordInput } from './auth.type.js';
import { SelfUpdateInput, USER_NEEDS, User } from './user.type.js';
import { shownWhole } from './user-as-seen.js';

type Out<T> = Promise<T>;

/** A token pair's user is its holder: the whole record (a login has no actor yet to judge by). */
const ownPair = (pair: TokenPairRow): TokenPairRow => {
  shownWhole(pair.user);
  return pair;
};

@Resolver()
export class AuthResolver {
  @Mutation(() => TokenPair)
  async login(@Arg('input', () => LoginInput, { nullable: true }) input: LoginInput | null, @Ctx() ctx: Context): Out<TokenPairRow> {
    return ownPair(await ctx.core.auth.login(ctx.em, input ?? {}, ctx.address));
  }

  @Mutation(() => TokenPair)
  async refresh(@Arg('input', () => RefreshInput, { nullable: true }) input: RefreshInput | null, @Ctx() ctx: Context): Out<TokenPairRow> {
    return ownPair(await ctx.core.auth.refresh(ctx.em, input?.refresh_token));
  }

  @Mutation(() => Boolean)
  async logout(@Ctx() ctx: Context): Out<boolean> {
    await ctx.core.auth.logout(ctx.em, requireActor(ctx));
    return true;
  }

  @Query(() => User)
  async whoami(@Ctx() ctx: Context, @Info() info: GraphQLResolveInfo): Out<UserRow> {
    const actor = requireActor(ctx);
    return ctx.loaders.take(await ctx.core.users.read(ctx.db, actor, actor.userId, includeOf(info, USER_NEEDS)));
  }

  @Mutation(() => User)
  async selfUpdate(@Arg('input', () => SelfUpdateInput, { nullable: true }) input: SelfUpdateInput | null, @Ctx() ctx: Context): Out<UserEntity> {
    return ctx.core.users.selfUpdate(ctx.em, requireActor(ctx), input ?? {});
  }

  @Mutation(() => TokenPair)
  async changeOrg(@Arg('input', () => ChangeOrgInput, { nullable: true }) input: ChangeOrgInput | null, @Ctx() ctx: Context): Out<TokenPairRow> {
    return ownPair(await ctx.core.auth.changeOrg(ctx.em, requireActor(ctx), input?.organization_id));
  }

  @Mutation(() => TokenPair)
  async resetProfile(@Ctx() ctx: Context): Out<TokenPairRow> {
    return ownPair(await ctx.core.auth.resetProfile(ctx.em, requireActor(ctx)));
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
