import DataLoader from 'dataloader';
import { requireActor, type Context } from '../context.js';
import type { Occurrence } from '../../src/movements/occurrence.entity.js';
import { occurrencesOfIngresses } from '../../src/movements/occurrence.reader.js';
import { readsOf, type MovementReadRow } from '../../src/movements/animals-egress.reader.js';
import { gtasOfIngresses, type IngressGtaRow } from '../../src/movements/animals-ingress.reader.js';

/** The movements' lists, one statement per request and list; the caller already sees the records they hang from. */
function create(ctx: Context) {
  const db = ctx.db;
  return {
    egressReads: new DataLoader<string, MovementReadRow[]>((ids) => readsOf(db, 'animals_egress_tag', ids)),
    ingressReads: new DataLoader<string, MovementReadRow[]>((ids) => readsOf(db, 'animals_ingress_tag', ids)),
    ingressGtas: new DataLoader<string, IngressGtaRow[]>((ids) => gtasOfIngresses(db, ids)),
    /** Scoped by the caller's policy on the occurrences' units. */
    ingressOccurrences: new DataLoader<string, Occurrence[]>((ids) => occurrencesOfIngresses(db, requireActor(ctx), ids)),
  };
}

// Keyed by the request's loaders (graphql/loaders.ts), so they live and die with the request.
const perRequest = new WeakMap<object, ReturnType<typeof create>>();

export function movementLoaders(ctx: Context): ReturnType<typeof create> {
  let loaders = perRequest.get(ctx.loaders);
  if (!loaders) {
    loaders = create(ctx);
    perRequest.set(ctx.loaders, loaders);
  }
  return loaders;
}
