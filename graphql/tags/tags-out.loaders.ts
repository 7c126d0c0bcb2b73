import DataLoader from 'dataloader';
import type { Context } from '../context.js';
import { Tag } from '../../src/tags/tag.entity.js';

export interface ReplacementItem {
  tags_replacement_id: string;
  animal_id: string;
  old_tag_id: string;
  new_tag_id: string;
  str_reason: string;
}

function create(ctx: Context) {
  const em = ctx.em;
  return {
    /** The tags of each writeoff, by code: one statement per request. */
    tagsOfWriteoff: new DataLoader<string, Tag[]>(async (ids) => {
      const rows = await em.execute<(Record<string, unknown> & { tags_writeoff_id: string })[]>(
        `select x.tags_writeoff_id, t.* from tags_writeoff_tag x join tag t on t.id = x.tag_id
          where x.tags_writeoff_id = any(array[?]::uuid[]) order by t.str_code`,
        [[...ids]],
      );
      const byWriteoff = new Map<string, Tag[]>();
      for (const { tags_writeoff_id: owner, ...row } of rows) {
        const list = byWriteoff.get(owner) ?? [];
        list.push(em.map(Tag, row as never));
        byWriteoff.set(owner, list);
      }
      return ids.map((id) => byWriteoff.get(id) ?? []);
    }),
    /** The animals, old and new tags of each replacement, by old code: one statement per request. */
    itemsOfReplacement: new DataLoader<string, ReplacementItem[]>(async (ids) => {
      const rows = await em.execute<ReplacementItem[]>(
        `select x.tags_replacement_id, x.animal_id, x.old_tag_id, x.new_tag_id, x.str_reason
           from tags_replacement_tag x join tag o on o.id = x.old_tag_id
          where x.tags_replacement_id = any(array[?]::uuid[]) order by o.str_code`,
        [[...ids]],
      );
      const byReplacement = new Map<string, ReplacementItem[]>();
      for (const row of rows) {
        const list = byReplacement.get(row.tags_replacement_id) ?? [];
        list.push(row);
        byReplacement.set(row.tags_replacement_id, list);
      }
      return ids.map((id) => byReplacement.get(id) ?? []);
    }),
  };
}

// Kept beside graphql/loaders.ts, keyed by the request's loaders, so they live and die with the request.
const perRequest = new WeakMap<object, ReturnType<typeof create>>();

export function tagsOutLoaders(ctx: Context): ReturnType<typeof create> {
  let loaders = perRequest.get(ctx.loaders);
  if (!loaders) {
    loaders = create(ctx);
    perRequest.set(ctx.loaders, loaders);
  }
  return loaders;
}
