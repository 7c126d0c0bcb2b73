import DataLoader from 'dataloader';
import { requireActor, type Context } from '../context.js';
import type { Animal } from '../../src/animals/animal.entity.js';
import { animalsOfIdentifications } from '../../src/animals/animal.reader.js';
import type { Include, Related } from '../../src/db/reader.js';
import { boxesOfEgresses, boxesOfIngresses, itemsOfReplacements, tagsOfWriteoffs, type OperationBoxRow, type ReplacementItem, type WriteoffTagRow } from '../../src/tags/tag-operations.reader.js';

/** The tag operations' relations, one statement per request and relation; the caller already sees the records they hang from. */
function create(ctx: Context) {
  const db = ctx.db;

  /** A to-many relation whose items have relations: one loader per selection, joining what the query selects under the items and priming the request's loaders with it. */
  const perSelection = <V>(load: (ids: readonly string[], include: Include) => Promise<{ groups: V[][]; related: Related[] }>) => {
    const loaders = new Map<string, DataLoader<string, V[]>>();
    return (include: Include): DataLoader<string, V[]> => {
      const key = JSON.stringify(include);
      let loader = loaders.get(key);
      if (!loader) {
        loader = new DataLoader(async (ids) => {
          const { groups, related } = await load(ids, include);
          ctx.loaders.prime(related);
          return groups;
        });
        loaders.set(key, loader);
      }
      return loader;
    };
  };

  return {
    ingressBoxes: new DataLoader<string, OperationBoxRow[]>((ids) => boxesOfIngresses(db, ids)),
    egressBoxes: new DataLoader<string, OperationBoxRow[]>((ids) => boxesOfEgresses(db, ids)),
    /** Scoped by the caller: an animal may since have moved where the caller does not see. */
    animalsOfIdentification: perSelection<Animal>((ids, include) => animalsOfIdentifications(db, requireActor(ctx), ids, include)),
    /** By code. */
    tagsOfWriteoff: perSelection<WriteoffTagRow>((ids, include) => tagsOfWriteoffs(db, requireActor(ctx), ids, include)),
    /** The animals, old and new tags of each replacement, by old code. */
    itemsOfReplacement: perSelection<ReplacementItem>((ids, include) => itemsOfReplacements(db, requireActor(ctx), ids, include)),
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
