import DataLoader from 'dataloader';
import type { Context } from '../context.js';

export interface IngressBoxRow {
  tags_ingress_id: string;
  id: string;
  str_code: string;
  str_begin: string;
  str_finish: string;
  int_quantity: number;
  /** The evaluation: PENDING, ACCEPTED or REJECTED. */
  str_status: string;
  str_box_status: string;
}

export interface EgressBoxRow {
  tags_egress_id: string;
  id: string;
  str_code: string;
  str_begin: string;
  str_finish: string;
  int_quantity: number;
  /** The box now. */
  str_status: string;
  /** The box before it left. */
  str_box_status: string;
}

function groupBy<T>(rows: T[], key: (r: T) => string, keys: readonly string[]): T[][] {
  const by = new Map<string, T[]>();
  for (const r of rows) {
    const list = by.get(key(r)) ?? [];
    list.push(r);
    by.set(key(r), list);
  }
  return keys.map((k) => by.get(k) ?? []);
}

function create(ctx: Context) {
  const em = ctx.em;
  return {
    /** The boxes of ingresses the caller already sees, one statement per request. */
    ingressBoxes: new DataLoader<string, IngressBoxRow[]>(async (ids) => {
      const rows = await em.execute<IngressBoxRow[]>(
        `select ib.tags_ingress_id, tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity, ib.str_status, tb.str_status as str_box_status
           from tags_ingress_box ib join tags_box tb on tb.id = ib.tags_box_id where ib.tags_ingress_id in (?) order by tb.str_begin`,
        [[...ids]],
      );
      return groupBy(rows, (r) => r.tags_ingress_id, ids);
    }),
    /** The boxes of egresses the caller already sees, one statement per request. */
    egressBoxes: new DataLoader<string, EgressBoxRow[]>(async (ids) => {
      const rows = await em.execute<EgressBoxRow[]>(
        `select eb.tags_egress_id, tb.id, tb.str_code, tb.str_begin, tb.str_finish, tb.int_quantity, tb.str_status, eb.str_box_status
           from tags_egress_box eb join tags_box tb on tb.id = eb.tags_box_id where eb.tags_egress_id in (?) order by tb.str_begin`,
        [[...ids]],
      );
      return groupBy(rows, (r) => r.tags_egress_id, ids);
    }),
  };
}

const perRequest = new WeakMap<object, ReturnType<typeof create>>();

/** The transfer operations' loaders, made once per request (keyed on the request's loaders). */
export function transferLoaders(ctx: Context): ReturnType<typeof create> {
  let loaders = perRequest.get(ctx.loaders);
  if (!loaders) {
    loaders = create(ctx);
    perRequest.set(ctx.loaders, loaders);
  }
  return loaders;
}
