import DataLoader from 'dataloader';
import { Ctx, Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root } from 'type-graphql';
import { groupedBy } from '../../src/db/reader.js';
import { statementsOfAnimals, statementsOfGtas, type EudrStatementReferenceRow } from '../../src/eudr/eudr-statement.reader.js';
import { MAX_UPSTREAM } from '../../src/eudr/eudr-statement.service.js';
import { Animal } from '../animals/animal.type.js';
import type { Context } from '../context.js';
import { Gta } from '../movements/gta.type.js';
import { DateTime, JSONObject, UUID } from '../shared/scalars.js';

@ObjectType('EudrUpstreamStatement', { description: 'An earlier operator’s statement this one references in TRACES' })
export class EudrUpstreamStatement {
  @Field(() => String) str_reference_number!: string;
  @Field(() => String) str_verification_number!: string;
}

@ObjectType('EudrStatement', { description: "A lot's EUDR due diligence statement: the animals it held when made, what TRACES gave on submission, the upstream statements it references" })
export class EudrStatement {
  @Field(() => UUID) id!: string;
  @Field(() => UUID, { nullable: true, description: 'The organization that made it' }) organization_id!: string | null;
  @Field(() => UUID) created_by_id!: string;
  @Field(() => JSONObject, { description: 'The lot as given (EudrLotInput), ids lower-cased' }) lot!: object;
  @Field(() => UUID, { nullable: true }) gta_id!: string | null;
  @Field(() => Int, { description: 'The animals it holds' }) int_animals!: number;
  @Field(() => String, { nullable: true, description: "TRACES's reference number, once submitted" }) str_reference_number!: string | null;
  @Field(() => String, { nullable: true, description: "TRACES's verification number" }) str_verification_number!: string | null;
  @Field(() => String, { nullable: true, description: 'The DDS identifier TRACES gave (a uuid)' }) str_dds_identifier!: string | null;
  @Field(() => [EudrUpstreamStatement]) upstream_statements!: EudrUpstreamStatement[];
  @Field(() => DateTime, { nullable: true, description: 'When its reference number was recorded' }) ts_submitted_at!: Date | null;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@ObjectType('EudrStatementReference', { description: 'A submitted EUDR statement the animal or GTA is part of: what the next operator must keep' })
export class EudrStatementReference {
  @Field(() => UUID) statement_id!: string;
  @Field(() => String) str_reference_number!: string;
  @Field(() => String, { nullable: true }) str_verification_number!: string | null;
  @Field(() => String, { nullable: true }) str_dds_identifier!: string | null;
  @Field(() => DateTime, { nullable: true }) ts_submitted_at!: Date | null;
}

@InputType('EudrUpstreamStatementInput')
export class EudrUpstreamStatementInput {
  @Field(() => String) str_reference_number!: string;
  @Field(() => String) str_verification_number!: string;
}

@InputType('EudrStatementUpdateInput', { description: 'What TRACES gave on submission; each field optional (null clears it)' })
export class EudrStatementUpdateInput {
  @Field(() => String, { nullable: true, description: 'e.g. 25BRVHQ8JAPRTG' }) str_reference_number?: string | null;
  @Field(() => String, { nullable: true, description: 'e.g. Y6ADF7PF' }) str_verification_number?: string | null;
  @Field(() => String, { nullable: true, description: 'A uuid' }) str_dds_identifier?: string | null;
  @Field(() => [EudrUpstreamStatementInput], { nullable: true, description: `The upstream statements it references (at most ${MAX_UPSTREAM}); replaces the list` }) upstream_statements?: EudrUpstreamStatementInput[] | null;
}

type ByKey = DataLoader<string, EudrStatementReferenceRow[]>;
const perRequest = new WeakMap<object, { animals?: ByKey; gtas?: ByKey }>();

function load(ctx: Context, which: 'animals' | 'gtas', key: string): Promise<EudrStatementReferenceRow[]> {
  const loaders = perRequest.get(ctx.loaders) ?? {};
  perRequest.set(ctx.loaders, loaders);
  const read = which === 'animals' ? statementsOfAnimals : statementsOfGtas;
  const loader = (loaders[which] ??= new DataLoader<string, EudrStatementReferenceRow[]>(async (keys) => groupedBy(keys, await read(ctx.db, keys), (r) => r.key)));
  return loader.load(key);
}

const EUDR_STATEMENTS = { description: 'The submitted EUDR statements it is part of (reference and verification numbers), oldest first' };

@Resolver(() => Animal)
export class AnimalEudrFieldsResolver {
  @FieldResolver(() => [EudrStatementReference], EUDR_STATEMENTS)
  eudr_statements(@Root() a: { id: string }, @Ctx() ctx: Context): Promise<EudrStatementReferenceRow[]> {
    return load(ctx, 'animals', a.id);
  }
}

@Resolver(() => Gta)
export class GtaEudrFieldsResolver {
  @FieldResolver(() => [EudrStatementReference], EUDR_STATEMENTS)
  eudr_statements(@Root() g: { id: string }, @Ctx() ctx: Context): Promise<EudrStatementReferenceRow[]> {
    return load(ctx, 'gtas', g.id);
  }
}
