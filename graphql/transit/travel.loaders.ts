import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { embarksOf, stopsOf, type TravelEmbarkRow, type TravelStopRow } from '../../src/transit/travel.reader.js';

/** A travel's lists, one statement per request and list; the caller already sees the travels they hang from. */
function create(ctx: Context) {
  const db = ctx.db;
  return {
    embarks: new DataLoader<string, TravelEmbarkRow[]>((ids) => embarksOf(db, ids)),
    stops: new DataLoader<string, TravelStopRow[]>((ids) => stopsOf(db, ids)),
  };
}

// Keyed by the request's loaders (graphql/loaders.ts), so they live and die with the request.
const perRequest = new WeakMap<object, ReturnType<typeof create>>();

export function travelLoaders(ctx: Context): ReturnType<typeof create> {
  let loaders = perRequest.get(ctx.loaders);
  if (!loaders) {
    loaders = create(ctx);
    perRequest.set(ctx.loaders, loaders);
  }
  return loaders;
}
