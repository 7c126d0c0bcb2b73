import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { Gta as GtaRow } from '../../src/movements/gta.entity.js';
import type { QaPing as QaPingRow } from '../../src/movements/integration-qa.service.js';
import { requireActor, type Context } from '../context.js';
import { DateTime, UUID } from '../shared/scalars.js';
import { Gta, IntegrationGtaInput } from './gta.type.js';

@ObjectType('QaPing', { description: "Integration QA: who the token is, its federative unit, whether the state integration answers it, and the server's clock" })
export class QaPing {
  @Field(() => UUID) user_id!: string;
  @Field(() => UUID, { nullable: true, description: 'The active organization, if any' }) organization_id!: string | null;
  @Field(() => String, { description: 'INTEGRATION and AUTHORITY users call the state integration' }) str_user_type!: string;
  @Field(() => String, { nullable: true, description: "The UF of the user's county: the one its calls are scoped to" }) str_federative_unit!: string | null;
  @Field(() => Boolean) bl_integration_allowed!: boolean;
  @Field(() => String, { nullable: true, description: 'Why the integration would answer 403, when it would' }) str_integration_refusal!: string | null;
  @Field(() => DateTime) ts_server_time!: Date;
}

/** Integration QA (`/api/v1/qa/...`): the real integration's checks and answers, nothing written. */
@Resolver()
export class IntegrationQaResolver {
  @Query(() => QaPing)
  qaPing(@Ctx() ctx: Context): Promise<QaPingRow> {
    return ctx.core.integrationQa.ping(ctx.db, requireActor(ctx));
  }

  @Mutation(() => Gta, { description: 'What gtaNotificar would store, or the error it would answer; writes nothing' })
  qaGtaNotificar(@Arg('input', () => IntegrationGtaInput) input: IntegrationGtaInput, @Ctx() ctx: Context): Promise<GtaRow> {
    return ctx.core.integrationQa.notificar(ctx.em, requireActor(ctx), input);
  }

  @Mutation(() => Gta, { description: 'What gtaCancelar would answer, or the error it would answer; changes nothing' })
  qaGtaCancelar(@Arg('input', () => IntegrationGtaInput) input: IntegrationGtaInput, @Ctx() ctx: Context): Promise<GtaRow> {
    return ctx.core.integrationQa.cancelar(ctx.em, requireActor(ctx), input);
  }
}
