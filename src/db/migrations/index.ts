import { Migration0001Identity } from './Migration0001Identity.js';
import { Migration0002Counties } from './Migration0002Counties.js';
import { Migration0003Vehicles } from './Migration0003Vehicles.js';
import { Migration0004Places } from './Migration0004Places.js';
import { Migration0005IdempotencyKeys } from './Migration0005IdempotencyKeys.js';
import { Migration0006Invites } from './Migration0006Invites.js';
import { Migration0007Gtas } from './Migration0007Gtas.js';
import { Migration0008Tags } from './Migration0008Tags.js';
import { Migration0009EventStreams } from './Migration0009EventStreams.js';
import { Migration0010LoginThrottle } from './Migration0010LoginThrottle.js';
import { Migration0011CreateResponses } from './Migration0011CreateResponses.js';
import { Migration0012Movements } from './Migration0012Movements.js';
import { Migration0013AnimalUnitFilters } from './Migration0013AnimalUnitFilters.js';
import { Migration0014EventAppend } from './Migration0014EventAppend.js';
import { Migration0015EventHeads } from './Migration0015EventHeads.js';
import { Migration0018Travels } from './Migration0018Travels.js';
import { Migration0019Trace } from './Migration0019Trace.js';
import { Migration0020Singletons } from './Migration0020Singletons.js';
import { Migration0021Sharings } from './Migration0021Sharings.js';
import { Migration0023Attachments } from './Migration0023Attachments.js';
import { Migration0024TraceWalk } from './Migration0024TraceWalk.js';
import { Migration0025TraceRuns } from './Migration0025TraceRuns.js';
import { Migration0026EventSubjects } from './Migration0026EventSubjects.js';
import { Migration0027EpcisReads } from './Migration0027EpcisReads.js';
import { Migration0029Hardening } from './Migration0029Hardening.js';
import { Migration0038EventsOut } from './Migration0038EventsOut.js';

/** Every migration, in order. New ones are appended; applied ones are never edited. */
export const migrationsList = [
  { name: 'Migration0001Identity', class: Migration0001Identity },
  { name: 'Migration0002Counties', class: Migration0002Counties },
  { name: 'Migration0003Vehicles', class: Migration0003Vehicles },
  { name: 'Migration0004Places', class: Migration0004Places },
  { name: 'Migration0005IdempotencyKeys', class: Migration0005IdempotencyKeys },
  { name: 'Migration0006Invites', class: Migration0006Invites },
  { name: 'Migration0007Gtas', class: Migration0007Gtas },
  { name: 'Migration0008Tags', class: Migration0008Tags },
  { name: 'Migration0009EventStreams', class: Migration0009EventStreams },
  { name: 'Migration0010LoginThrottle', class: Migration0010LoginThrottle },
  { name: 'Migration0011CreateResponses', class: Migration0011CreateResponses },
  { name: 'Migration0012Movements', class: Migration0012Movements },
  { name: 'Migration0013AnimalUnitFilters', class: Migration0013AnimalUnitFilters },
  { name: 'Migration0014EventAppend', class: Migration0014EventAppend },
  { name: 'Migration0015EventHeads', class: Migration0015EventHeads },
  { name: 'Migration0018Travels', class: Migration0018Travels },
  { name: 'Migration0019Trace', class: Migration0019Trace },
  { name: 'Migration0020Singletons', class: Migration0020Singletons },
  { name: 'Migration0021Sharings', class: Migration0021Sharings },
  { name: 'Migration0023Attachments', class: Migration0023Attachments },
  { name: 'Migration0024TraceWalk', class: Migration0024TraceWalk },
  { name: 'Migration0025TraceRuns', class: Migration0025TraceRuns },
  { name: 'Migration0026EventSubjects', class: Migration0026EventSubjects },
  { name: 'Migration0027EpcisReads', class: Migration0027EpcisReads },
  { name: 'Migration0029Hardening', class: Migration0029Hardening },
  { name: 'Migration0038EventsOut', class: Migration0038EventsOut },
];

