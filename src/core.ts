import type pg from 'pg';
import type { Config } from './config.js';
import { AuthService } from './identity/auth.service.js';
import { OrganizationService } from './identity/organization.service.js';
import { LoginThrottle } from './identity/throttle.js';
import { Tokens } from './identity/tokens.js';
import { UserService } from './identity/user.service.js';
import { OrganizationInviteService } from './identity/organization-invite.service.js';
import type { Logger } from './shared/logger.js';
import { Mailer } from './shared/mailer.js';
import { CountyService } from './places/county.service.js';
import { ControlUnitService } from './places/control-unit.service.js';
import { EstablishmentService } from './places/establishment.service.js';
import { VehicleService } from './transit/vehicle.service.js';
import { GtaService } from './movements/gta.service.js';
import { IntegrationService } from './movements/integration.service.js';
import { InviteService } from './access/invite.service.js';
import { InviteRequestService } from './access/invite-request.service.js';
import { SharingService } from './access/sharing.service.js';
import { TagService } from './tags/tag.service.js';
import { TagsIngressService } from './tags/tags-ingress.service.js';
import { TagsEgressService } from './tags/tags-egress.service.js';
import { TagsReservationService } from './tags/tags-reservation.service.js';
import { TagsIdentificationService } from './tags/tags-identification.service.js';
import { AnimalService } from './animals/animal.service.js';
import { TagsReplacementService } from './tags/tags-replacement.service.js';
import { TagsWriteoffService } from './tags/tags-writeoff.service.js';
import { AnimalsEgressService } from './movements/animals-egress.service.js';
import { AnimalsIngressService } from './movements/animals-ingress.service.js';
import { TraceService } from './trace/trace.service.js';
import { TraceProgress } from './trace/trace-progress.js';
import { OccurrenceService } from './movements/occurrence.service.js';
import { TravelService } from './transit/travel.service.js';
import { HomeService } from './home/home.service.js';
import { UserFeatureService } from './identity/user-features.service.js';
import { PrivacyTermsService } from './identity/privacy-terms.service.js';
import { UserVerificationService } from './identity/user-verification.service.js';
import { SendThrottle } from './identity/throttle.js';
import { LogSmsSender } from './shared/sms.js';
import { AttachmentService } from './attachments/attachment.service.js';
import { openAttachmentStore } from './attachments/attachment.store.js';
import { IntegrationQaService } from './movements/integration-qa.service.js';
import { systemClock, type Clock } from './shared/clock.js';
import { EpcisService } from './epcis/epcis.service.js';
import { EudrService } from './eudr/eudr.service.js';
import { EudrStatementService } from './eudr/eudr-statement.service.js';
import { WebhookService } from './outbox/webhook.service.js';

/** The domain core: every service, built once per process from the config. */
export interface Core {
  auth: AuthService;
  users: UserService;
  /** POST /api/users: a person invited to the caller's organization. */
  organizationInvites: OrganizationInviteService;
  organizations: OrganizationService;
  counties: CountyService;
  establishments: EstablishmentService;
  controlUnits: ControlUnitService;
  vehicles: VehicleService;
  gtas: GtaService;
  integration: IntegrationService;
  invites: InviteService;
  inviteRequests: InviteRequestService;
  tags: TagService;
  tagsIngresses: TagsIngressService;
  tagsEgresses: TagsEgressService;
  tagsReservations: TagsReservationService;
  tagsIdentifications: TagsIdentificationService;
  animals: AnimalService;
  tagsReplacements: TagsReplacementService;
  tagsWriteoffs: TagsWriteoffService;
  animalsEgresses: AnimalsEgressService;
  animalsIngresses: AnimalsIngressService;
  trace: TraceService;
  /** Each trace's phases for the traceProgress subscription (src/trace/trace-progress.ts). */
  traceProgress: TraceProgress;
  occurrences: OccurrenceService;
  travels: TravelService;
  home: HomeService;
  userFeatures: UserFeatureService;
  privacyTerms: PrivacyTermsService;
  userVerification: UserVerificationService;
  attachments: AttachmentService;
  integrationQa: IntegrationQaService;
  sharings: SharingService;
  /** Wired to the database once it is open (src/server.ts). */
  mailer: Mailer;
  epcis: EpcisService;
  eudr: EudrService;
  eudrStatements: EudrStatementService;
  webhooks: WebhookService;
}

/** `clock`: the instant each request is judged at (tests pass one they move). `pool`: PostgreSQL's, for what every instance must share (login throttling); none on PGlite. */
export function createCore(config: Config, log: Logger, pool?: pg.Pool, clock: Clock = systemClock): Core {
  const tokens = new Tokens({ secret: config.JWT_SECRET, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const throttle = new LoginThrottle({ perLogin: config.LOGIN_LIMIT_PER_LOGIN, perAddress: config.LOGIN_LIMIT_PER_ADDRESS, windowSeconds: config.LOGIN_LIMIT_WINDOW_SECONDS }, pool);
  const mailer = new Mailer(config.SMTP_URL, config.MAIL_FROM, log);
  const auth = new AuthService(tokens, throttle, mailer, config.PUBLIC_URL, config.TERMS_REQUIRED, clock);
  const gtas = new GtaService();
  const integration = new IntegrationService(gtas);
  const eudr = new EudrService(config.EUDR_STATEMENT_MAX_BYTES);
  const traceProgress = new TraceProgress(log);
  return { auth, users: new UserService(auth), organizationInvites: new OrganizationInviteService(tokens, mailer, config.PUBLIC_URL), organizations: new OrganizationService(), counties: new CountyService(), establishments: new EstablishmentService(auth), controlUnits: new ControlUnitService(), vehicles: new VehicleService(), gtas, integration, invites: new InviteService(auth), inviteRequests: new InviteRequestService(),
    tags: new TagService(),
    tagsIngresses: new TagsIngressService(),
    tagsEgresses: new TagsEgressService(),
    tagsReservations: new TagsReservationService(),
    tagsIdentifications: new TagsIdentificationService(),
    animals: new AnimalService(),
    tagsReplacements: new TagsReplacementService(),
    tagsWriteoffs: new TagsWriteoffService(),
    animalsEgresses: new AnimalsEgressService(),
    animalsIngresses: new AnimalsIngressService(),
    trace: new TraceService(traceProgress, null, log, { animals: config.TRACE_CSV_PART_ANIMALS, parallel: config.TRACE_CSV_PARALLEL }),
    traceProgress,
    occurrences: new OccurrenceService(),
    travels: new TravelService(config.TRAVEL_MAX_HOURS),
    home: new HomeService(),
    userFeatures: new UserFeatureService(config.USER_FEATURES_DEFAULT),
    privacyTerms: new PrivacyTermsService(),
    userVerification: new UserVerificationService(mailer, new LogSmsSender(log), config.VERIFICATION_PEPPER, new SendThrottle(config.VERIFICATION_SEND_INTERVAL_SECONDS, pool), log),
    attachments: new AttachmentService(openAttachmentStore(config, log), log),
    integrationQa: new IntegrationQaService(integration),
    sharings: new SharingService(),
    mailer,
    epcis: new EpcisService(clock),
    eudr,
    eudrStatements: new EudrStatementService(eudr),
    webhooks: new WebhookService(config.WEBHOOK_ALLOW_PRIVATE),
  };
}
