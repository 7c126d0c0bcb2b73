import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { UserFeatures as UserFeaturesRow } from '../../src/identity/user-features.service.js';
import type { FeatureSettingRow } from '../../src/identity/user-features.reader.js';
import { requireActor, type Context } from '../context.js';
import { UUID } from '../shared/scalars.js';
import { FeatureSetting, FeatureSettingInput, UserFeatures } from './user-features.type.js';

@Resolver()
export class UserFeaturesResolver {
  @Query(() => UserFeatures, { description: 'The feature flags enabled for the caller' })
  userFeatures(@Ctx() ctx: Context): Promise<UserFeaturesRow> {
    return ctx.core.userFeatures.mine(ctx.db, requireActor(ctx));
  }

  @Mutation(() => FeatureSetting, { description: "Replace a user's feature setting (administrators)" })
  setUserFeatures(@Arg('user_id', () => UUID) userId: string, @Arg('input', () => FeatureSettingInput) input: FeatureSettingInput, @Ctx() ctx: Context): Promise<FeatureSettingRow> {
    return ctx.core.userFeatures.setForUser(ctx.em, requireActor(ctx), userId, input);
  }

  @Mutation(() => FeatureSetting, { description: "Replace an organization's feature setting (administrators)" })
  setOrganizationFeatures(@Arg('organization_id', () => UUID) organizationId: string, @Arg('input', () => FeatureSettingInput) input: FeatureSettingInput, @Ctx() ctx: Context): Promise<FeatureSettingRow> {
    return ctx.core.userFeatures.setForOrganization(ctx.em, requireActor(ctx), organizationId, input);
  }
}
