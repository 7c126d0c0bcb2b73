import DataLoader from 'dataloader';
import { requireActor, type Context } from '../context.js';
import type { Animal } from '../../src/animals/animal.entity.js';
import { animalsOfIdentifications } from '../../src/animals/animal.reader.js';
import type { Tag } from '../../src/tags/tag.entity.js';
import { boxesOfEgresses, boxesOfIngresses, itemsOfReplacements, tagsOfWriteoffs, type OperationBoxRow, type ReplacementItem } from '../../src/tags/tag-operations.reader.js';

/** The tag operations' relations, one statement per request and relation; the caller already sees the records they hang from. */
function create(ctx: Context) {
  const db = ctx.db;
  return {
    ingressBoxes: new DataLoader<string, OperationBoxRow[]>((ids) => boxesOfIngresses(db, ids)),
    egressBoxes: new DataLoader<string, OperationBoxRow[]>((ids) => boxesOfEgresses(db, ids)),
    /** Scoped by the caller: an animal may since have moved where the caller does not see. */
    animalsOfIdentification: new DataLoader<string, Animal[]>((ids) => animalsOfIdentifications(db, requireActor(ctx), ids)),
    /** By code. */
    tagsOfWriteoff: new DataLoader<string, Tag[]>((ids) => tagsOfWriteoffs(db, ids)),
    /** The animals, old and new tags of each replacement, by old code. */
    itemsOfReplacement: new DataLoader<string, ReplacementItem[]>((ids) => itemsOfReplacements(db, ids)),
  };
}

// Keyed by the request's loaders (graphql/loaders.ts), so they live and die with the request.
const perRequest = new WeakMap<object, ReturnType<typeof create>>();

export function tagsLoaders(ctx: Context): ReturnType<typeof create> {
  let loaders = perRequest.get(ctx.loaders);
  if (!loaders) {
    loaders = create(ctx);
    perRequest.set(ctx.loaders, loaders);
  }
  return loaders;
}
