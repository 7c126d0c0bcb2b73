import type { EntityManager } from '@mikro-orm/postgresql';
import type { Core } from '../src/core.js';
import type { Db } from '../src/db/sql.js';
import type { Actor } from '../src/identity/actor.js';
import type { IncomingFile } from '../src/attachments/attachment.upload.js';
import { DomainError } from '../src/shared/errors.js';
import type { LiveEnd, LiveHub } from '../src/outbox/live.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Everything one request carries into a resolver, whichever door it came through. */
export interface Context {
  core: Core;
  em: EntityManager;
  /** The read side: plain rows from the core's readers. */
  db: Db;
  actor: Actor | null;
  /** Why the bearer token was refused, when one was sent and did not hold. */
  authError: DomainError | null;
  requestId: string;
  address: string;
  loaders: Loaders;
  /** The file a REST multipart upload received (POST /api/attachments); GraphQL requests carry none. */
  upload?: IncomingFile | null;
  /** A subscription's door (graphql-ws, graphql-sse): the hub, and how the door ends its connection when the server ends a subscription (a revoked session). */
  live?: { hub: LiveHub; onEnd?: (reason: LiveEnd) => void } | null;
}

/**
 * `fork` makes the request's entity manager the first time a write (or the ORM) needs it: reads
 * never do. The getter lives on the prototype: Apollo hands resolvers a copy of the context
 * (`Object.assign` onto the same prototype), which would call an own getter, and fork, per request.
 */
class RequestContext implements Context {
  core!: Core;
  db!: Db;
  actor!: Actor | null;
  authError!: DomainError | null;
  requestId!: string;
  address!: string;
  live?: Context['live'];
  loaders: Loaders;
  forked: EntityManager | null = null;

  constructor(
    parts: Omit<Context, 'loaders' | 'em'>,
    private readonly fork: () => EntityManager,
  ) {
    Object.assign(this, parts);
    this.loaders = createLoaders(parts.db, parts.actor);
  }

  get em(): EntityManager {
    return (this.forked ??= this.fork());
  }
}

export function createContext(parts: Omit<Context, 'loaders' | 'em'>, fork: () => EntityManager): Context {
  return new RequestContext(parts, fork);
}

export function requireActor(ctx: Context): Actor {
  if (ctx.actor) return ctx.actor;
  throw ctx.authError ?? DomainError.unauthenticated();
}
