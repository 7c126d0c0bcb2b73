import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { PrivacyTermsRow } from '../../src/identity/privacy-terms.reader.js';
import { requireActor, type Context } from '../context.js';
import { PrivacyAndTerms, PrivacyAndTermsAcceptInput, PrivacyAndTermsInput } from './privacy-terms.type.js';

@Resolver()
export class PrivacyTermsResolver {
  @Query(() => PrivacyAndTerms, { description: 'The current terms, readable without a token (then without the acceptance)' })
  privacyAndTerms(@Ctx() ctx: Context): Promise<PrivacyTermsRow> {
    return ctx.core.privacyTerms.current(ctx.db, ctx.actor);
  }

  @Mutation(() => PrivacyAndTerms, { description: 'Publish a new current version (administrators)' })
  publishPrivacyAndTerms(@Arg('input', () => PrivacyAndTermsInput) input: PrivacyAndTermsInput, @Ctx() ctx: Context): Promise<PrivacyTermsRow> {
    return ctx.core.privacyTerms.publish(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => PrivacyAndTerms, { description: 'The caller accepts the current version' })
  acceptPrivacyAndTerms(@Arg('input', () => PrivacyAndTermsAcceptInput, { nullable: true }) input: PrivacyAndTermsAcceptInput | null, @Ctx() ctx: Context): Promise<PrivacyTermsRow> {
    return ctx.core.privacyTerms.accept(ctx.em, requireActor(ctx), input ?? {});
  }
}
