import { Arg, Args, ArgsType, Ctx, Field, InputType, Int, ObjectType, Query, Resolver } from 'type-graphql';
import type { JsonObject } from '../../src/epcis/epcis.mapper.js';
import type { EpcisEventsPage as EpcisEventsPageRow } from '../../src/epcis/epcis.service.js';
import { requireActor, type Context } from '../context.js';
import { JSONObject, UUID } from '../shared/scalars.js';

@InputType('EpcisBizTransactionFilter', { description: "EPCIS 2.0's EQ_bizTransaction_<type>: events with a bizTransaction of this type whose value is one of these" })
export class EpcisBizTransactionFilter {
  @Field(() => String, { description: 'The bizTransaction type (GTAs: urn:pnib:btt:gta); a type this service never records matches nothing' }) type!: string;
  @Field(() => [String]) values!: string[];
}

@ArgsType()
export class EpcisEventsArgs {
  @Field(() => String, { nullable: true, description: 'Events at or after this ISO 8601 instant' }) GE_eventTime?: string;
  @Field(() => String, { nullable: true, description: 'Events before this ISO 8601 instant' }) LT_eventTime?: string;
  @Field(() => [String], { nullable: true, description: 'CBV business steps: commissioning, shipping, receiving, replacing, decommissioning (bare words or CBV URIs)' }) EQ_bizStep?: string[];
  @Field(() => [String], { nullable: true, description: 'Events listing any of these animals in epcList (urn:pnib:animal:<code>) or any of these tags in childEPCs (urn:pnib:tag:<code>); not the parentID' }) MATCH_epc?: string[];
  @Field(() => [String], { nullable: true, description: 'Events whose parentID is any of these (a tag association names the animal as its parent)' }) MATCH_parentID?: string[];
  @Field(() => [String], { nullable: true, description: 'Events naming any of these anywhere: epcList, childEPCs or parentID' }) MATCH_anyEPC?: string[];
  @Field(() => [String], { nullable: true, description: 'Events whose business location is any of these control units (urn:pnib:loc:unit:<code>)' }) EQ_bizLocation?: string[];
  @Field(() => [String], { nullable: true, description: 'Events under any of these GTAs (urn:pnib:bt:gta:<UF>:<series or ->:<number>)' }) EQ_bizTransaction?: string[];
  @Field(() => [EpcisBizTransactionFilter], { nullable: true, description: "The standard's EQ_bizTransaction_<type> parameters (REST: the query string's names)" }) bizTransactionsOfType?: EpcisBizTransactionFilter[];
  @Field(() => Int, { nullable: true, description: 'Events per page, 1 to 500 (default 50)' }) perPage?: number;
  @Field(() => String, { nullable: true, description: 'The previous page’s nextPageToken, with the same parameters' }) nextPageToken?: string;
}

@ObjectType('EpcisEventsPage', { description: 'A page of GS1 EPCIS 2.0 events the caller sees, oldest first' })
export class EpcisEventsPage {
  @Field(() => JSONObject, { description: 'An EPCISQueryDocument (JSON-LD)' }) document!: JsonObject;
  @Field(() => String, { nullable: true, description: 'Ask again with it for the next page; null on the last page' }) nextPageToken!: string | null;
}

@Resolver()
export class EpcisResolver {
  @Query(() => JSONObject, { description: "The animal's chain of custody as a GS1 EPCIS 2.0 EPCISDocument (JSON-LD, CBV 2.0)" })
  async animalEpcis(@Arg('id', () => UUID) id: string, @Ctx() ctx: Context): Promise<JsonObject> {
    return ctx.core.epcis.animalDocument(ctx.db, requireActor(ctx), id);
  }

  @Query(() => EpcisEventsPage, { description: 'EPCIS 2.0 SimpleEventQuery over the events the caller sees, paged by nextPageToken' })
  async epcisEvents(@Args(() => EpcisEventsArgs) args: EpcisEventsArgs, @Ctx() ctx: Context): Promise<EpcisEventsPageRow> {
    return ctx.core.epcis.events(ctx.db, requireActor(ctx), args);
  }
}
