import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import { DomainError } from '../src/shared/errors.js';
import type { Context } from './context.js';

/** What a user who has not accepted the current terms may still do: read and accept them, and its session's own calls. */
const BEFORE_TERMS = new Set(['privacyAndTerms', 'publishPrivacyAndTerms', 'acceptPrivacyAndTerms', 'login', 'refresh', 'logout', 'whoami']);

/**
 * TERMS_REQUIRED (the actor says termsPending): every other root field answers TERMS_NOT_ACCEPTED
 * (428). Both doors run through these fields, so one gate holds REST and GraphQL alike; only root
 * fields are wrapped, so nested fields keep their plain property reads; a subscription is refused
 * when it starts.
 */
export function gateTerms(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (BEFORE_TERMS.has(field.name)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx: Context, info) => {
        if (ctx.actor?.termsPending) {
          throw new DomainError('TERMS_NOT_ACCEPTED', { message: 'accept the current privacy and terms first (POST /api/privacy-and-terms/accept)', path: '/api/privacy-and-terms' });
        }
        return resolve(source, args, ctx, info);
      };
    }
  }
  // Subscriptions: refused when they start (their events resolve without the gate).
  for (const field of Object.values(schema.getSubscriptionType()?.getFields() ?? {})) {
    const subscribe = field.subscribe;
    if (!subscribe) continue;
    field.subscribe = (source, args, ctx: Context, info) => {
      if (ctx.actor?.termsPending) {
        throw new DomainError('TERMS_NOT_ACCEPTED', { message: 'accept the current privacy and terms first (POST /api/privacy-and-terms/accept)', path: '/api/privacy-and-terms' });
      }
      return subscribe(source, args, ctx, info);
    };
  }
  return schema;
}
