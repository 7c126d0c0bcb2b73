import { TraceResolver } from './trace/trace.type.js';
import { AnimalStayFieldsResolver } from './animals/animal-stay.type.js';
import { AnimalsEgressResolver } from './movements/animals-egress.resolver.js';
import { AnimalsEgressFieldsResolver } from './movements/animals-egress.type.js';
import { AnimalsIngressResolver } from './movements/animals-ingress.resolver.js';
import { AnimalsIngressFieldsResolver, AnimalsIngressGtaFieldsResolver } from './movements/animals-ingress.type.js';
import { AnimalsEgressTagFieldsResolver, AnimalsIngressTagFieldsResolver } from './movements/movement-read.type.js';
import 'reflect-metadata';
import { buildSchema, getMetadataStorage } from 'type-graphql';
import type { GraphQLSchema } from 'graphql';
import { AuthResolver } from './identity/auth.resolver.js';
import { MembershipFieldsResolver } from './identity/organization.type.js';
import { OrganizationResolver } from './identity/organization.resolver.js';
import { UserFieldsResolver } from './identity/user.type.js';
import { UserResolver } from './identity/user.resolver.js';
import { CountyResolver } from './places/county.resolver.js';
import { ControlUnitResolver, EstablishmentResolver } from './places/establishment.resolver.js';
import {
  ControlUnitFieldsResolver,
  EstablishmentFieldsResolver,
  EstablishmentSharedFieldsResolver,
  EstablishmentUnrestrictedFieldsResolver,
  EstablishmentUnrestrictedSharedFieldsResolver,
} from './places/establishment.type.js';
import { VehicleResolver } from './transit/vehicle.resolver.js';
import { GtaResolver, IntegrationResolver } from './movements/gta.resolver.js';
import { GtaFieldsResolver } from './movements/gta.type.js';
import { VehicleFieldsResolver } from './transit/vehicle.type.js';
import { TravelResolver } from './transit/travel.resolver.js';
import { TravelEmbarkFieldsResolver, TravelFieldsResolver, TravelStopFieldsResolver } from './transit/travel.type.js';
import { InviteResolver } from './access/invite.resolver.js';
import { InviteFieldsResolver } from './access/invite.type.js';
import { SharingResolver } from './access/sharing.resolver.js';
import { SharingFieldsResolver } from './access/sharing.type.js';
import { InviteRequestResolver } from './access/invite-request.resolver.js';
import { InviteRequestFieldsResolver } from './access/invite-request.type.js';
import { TagFieldsResolver, TagsReservationFieldsResolver } from './tags/tag.type.js';
import { AnimalFieldsResolver } from './animals/animal.type.js';
import { TagResolver } from './tags/tag.resolver.js';
import { TagsIngressResolver } from './tags/tags-ingress.resolver.js';
import { TagsIngressFieldsResolver } from './tags/tags-ingress.type.js';
import { TagsEgressResolver } from './tags/tags-egress.resolver.js';
import { ControlUnitReadOnlyFieldsResolver, TagsEgressFieldsResolver } from './tags/tags-egress.type.js';
import { AnimalResolver } from './animals/animal.resolver.js';
import { TagsReservationResolver } from './tags/tags-reservation.resolver.js';
import { TagsIdentificationResolver } from './tags/tags-identification.resolver.js';
import { TagsIdentificationFieldsResolver } from './tags/tags-identification.type.js';
import { TagsReplacementResolver } from './tags/tags-replacement.resolver.js';
import { TagsReplacementFieldsResolver, TagsReplacementTagFieldsResolver } from './tags/tags-replacement.type.js';
import { TagsWriteoffResolver } from './tags/tags-writeoff.resolver.js';
import { TagsWriteoffFieldsResolver } from './tags/tags-writeoff.type.js';
import { OccurrenceResolver } from './movements/occurrence.resolver.js';
import { OccurrenceFieldsResolver } from './movements/occurrence.type.js';
import { HomeResolver } from './home/home.resolver.js';
import { UserFeaturesResolver } from './identity/user-features.resolver.js';
import { PrivacyTermsResolver } from './identity/privacy-terms.resolver.js';
import { UserVerificationResolver } from './identity/user-verification.resolver.js';
import { gateTerms } from './terms-gate.js';
import { EpcisResolver } from './epcis/epcis.resolver.js';
import { EudrResolver } from './eudr/eudr.resolver.js';
import { EudrStatementResolver } from './eudr/eudr-statement.resolver.js';
import { AnimalEudrFieldsResolver, GtaEudrFieldsResolver } from './eudr/eudr-statement.type.js';
import { AttachmentResolver } from './attachments/attachment.resolver.js';
import { AttachmentFieldsResolver } from './attachments/attachment.type.js';
import { IntegrationQaResolver } from './movements/integration-qa.resolver.js';
import { WebhookResolver } from './webhooks/webhook.resolver.js';
import { LiveResolver } from './events/live.resolver.js';
import { TraceProgressResolver } from './trace/trace-progress.resolver.js';

let built: Promise<GraphQLSchema> | null = null;

const NO_PUBSUB = {
  publish: () => undefined,
  subscribe: (): AsyncIterable<unknown> => {
    throw new Error('subscriptions read the committed log (src/outbox/live.ts), not a PubSub');
  },
};

/** The one schema both doors execute against. */
export function getSchema(): Promise<GraphQLSchema> {
  // No field middleware or auth checker is used: a plain field reads the row's property, unwrapped.
  for (const type of getMetadataStorage().objectTypes) type.simpleResolvers ??= true;
  built ??= buildSchema({
    resolvers: [AuthResolver, UserResolver, UserFieldsResolver, OrganizationResolver, MembershipFieldsResolver, CountyResolver,
      EstablishmentResolver,
      EstablishmentFieldsResolver,
      EstablishmentSharedFieldsResolver,
      EstablishmentUnrestrictedFieldsResolver,
      EstablishmentUnrestrictedSharedFieldsResolver,
      ControlUnitResolver,
      ControlUnitFieldsResolver,
      VehicleResolver, VehicleFieldsResolver,
      GtaResolver,
      WebhookResolver,
      LiveResolver, TraceProgressResolver,
      GtaFieldsResolver,
      IntegrationResolver,
      InviteResolver,
      InviteFieldsResolver,
      InviteRequestResolver,
      InviteRequestFieldsResolver,
      SharingResolver,
      SharingFieldsResolver,
      TagFieldsResolver,
      TagsReservationFieldsResolver,
      AnimalFieldsResolver,
      TagResolver,
      TagsIngressResolver,
      TagsIngressFieldsResolver,
      TagsEgressResolver,
      TagsEgressFieldsResolver,
      ControlUnitReadOnlyFieldsResolver,
      AnimalResolver,
      TagsReservationResolver,
      TagsIdentificationResolver,
      TagsIdentificationFieldsResolver,
      TagsReplacementResolver, TagsReplacementFieldsResolver, TagsReplacementTagFieldsResolver,
      TagsWriteoffResolver, TagsWriteoffFieldsResolver,
      AnimalsEgressResolver, AnimalsEgressFieldsResolver, AnimalsEgressTagFieldsResolver,
      AnimalsIngressResolver, AnimalsIngressFieldsResolver, AnimalsIngressGtaFieldsResolver, AnimalsIngressTagFieldsResolver, AnimalStayFieldsResolver, TraceResolver,
      OccurrenceResolver, OccurrenceFieldsResolver,
      TravelResolver, TravelFieldsResolver, TravelEmbarkFieldsResolver, TravelStopFieldsResolver,
      HomeResolver, UserFeaturesResolver, PrivacyTermsResolver, UserVerificationResolver,
      AttachmentResolver, AttachmentFieldsResolver, IntegrationQaResolver, EpcisResolver, EudrResolver, EudrStatementResolver, AnimalEudrFieldsResolver, GtaEudrFieldsResolver],
    validate: false,
    // Subscriptions bring their own source (graphql/events/live.resolver.ts, `subscribe`); type-graphql still asks for a PubSub.
    pubSub: NO_PUBSUB,
  }).then(gateTerms);
  return built;
}
