import DataLoader from 'dataloader';
import { requireActor, type Context } from '../context.js';
import { groupedBy } from '../loaders.js';
import type { Animal } from '../../src/animals/animal.entity.js';
import { Tag } from '../../src/tags/tag.entity.js';
import type { BoxRow } from '../../src/tags/transfer-support.js';

/**
 * A box as an ingress or an egress lists it. For an ingress `str_status` is the evaluation
 * (PENDING, ACCEPTED, REJECTED) and `str_box_status` the box now; for an egress `str_status` is
 * the box now and `str_box_status` the box before it left.
 */
type OperationBoxRow = Omit<BoxRow, 'control_unit_id'> & { str_box_status: string };

export interface ReplacementItem {
  tags_replacement_id: string;
  animal_id: string;
  old_tag_id: string;
  new_tag_id: string;
  str_reason: string;
}

/** The tag operations' relations, one statement per request and relation; the caller already sees the records they hang from. */
function create(ctx: Context) {
  const em = ctx.em;
  return {
    ingressBoxes: new DataLoader<string, OperationBoxRow[]>(async (ids) => {
      const rows = await em.execute<(OperationBoxRow & { tags_ingress_id: string })[]>(
        `select ib.tags_ingress_id, tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity, ib.str_status, tb.str_status as str_box_status
           from tags_ingress_box ib join tags_box tb on tb.id = ib.tags_box_id where ib.tags_ingress_id in (?) order by tb.str_begin`,
        [[...ids]],
      );
      return groupedBy(ids, rows, (r) => r.tags_ingress_id);
    }),
    egressBoxes: new DataLoader<string, OperationBoxRow[]>(async (ids) => {
      const rows = await em.execute<(OperationBoxRow & { tags_egress_id: string })[]>(
        `select eb.tags_egress_id, tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity, tb.str_status, eb.str_box_status
           from tags_egress_box eb join tags_box tb on tb.id = eb.tags_box_id where eb.tags_egress_id in (?) order by tb.str_begin`,
        [[...ids]],
      );
      return groupedBy(ids, rows, (r) => r.tags_egress_id);
    }),
    /** Scoped by the caller: an animal may since have moved where the caller does not see. */
    animalsOfIdentification: new DataLoader<string, Animal[]>((ids) => ctx.core.animals.ofIdentifications(ctx.em, requireActor(ctx), ids)),
    /** By code. */
    tagsOfWriteoff: new DataLoader<string, Tag[]>(async (ids) => {
      const rows = await em.execute<(Record<string, unknown> & { tags_writeoff_id: string })[]>(
        `select x.tags_writeoff_id, t.* from tags_writeoff_tag x join tag t on t.id = x.tag_id
          where x.tags_writeoff_id = any(array[?]::uuid[]) order by t.str_code`,
        [[...ids]],
      );
      const tags = rows.map(({ tags_writeoff_id, ...row }) => ({ tags_writeoff_id, tag: em.map(Tag, row as never) }));
      return groupedBy(ids, tags, (r) => r.tags_writeoff_id).map((list) => list.map((r) => r.tag));
    }),
    /** The animals, old and new tags of each replacement, by old code. */
    itemsOfReplacement: new DataLoader<string, ReplacementItem[]>(async (ids) => {
      const rows = await em.execute<ReplacementItem[]>(
        `select x.tags_replacement_id, x.animal_id, x.old_tag_id, x.new_tag_id, x.str_reason
           from tags_replacement_tag x join tag o on o.id = x.old_tag_id
          where x.tags_replacement_id = any(array[?]::uuid[]) order by o.str_code`,
        [[...ids]],
      );
      return groupedBy(ids, rows, (r) => r.tags_replacement_id);
    }),
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
