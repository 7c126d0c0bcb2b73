import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { VerificationResult, VerificationSent } from '../../src/identity/user-verification.service.js';
import { requireActor, type Context } from '../context.js';
import { UserVerification, UserVerificationSendInput, UserVerificationSent, UserVerificationVerifyCodeInput } from './user-verification.type.js';

@Resolver()
export class UserVerificationResolver {
  @Mutation(() => UserVerificationSent, { description: 'Send the caller a 6-digit code by e-mail or SMS (one a minute)' })
  sendUserVerification(@Arg('input', () => UserVerificationSendInput, { nullable: true }) input: UserVerificationSendInput | null, @Ctx() ctx: Context): Promise<VerificationSent> {
    return ctx.core.userVerification.send(ctx.em, requireActor(ctx), input ?? {});
  }

  @Mutation(() => UserVerification, { description: 'The code sent sets bl_verified' })
  verifyUserVerification(@Arg('input', () => UserVerificationVerifyCodeInput, { nullable: true }) input: UserVerificationVerifyCodeInput | null, @Ctx() ctx: Context): Promise<VerificationResult> {
    return ctx.core.userVerification.verify(ctx.em, requireActor(ctx), input ?? {});
  }
}
