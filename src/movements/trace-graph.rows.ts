import type { GraphStay } from './trace-graph.types.js';

/**
 * The stays as the in-memory walk reads them (GraphStay), the rows `tail` selects (a where clause,
 * an order, a limit: the caller's placeholders). The vehicle is Migration0067's VEHICLE: the travel of the egress that
 * closed the stay (its embark not released), or the egress itself; none unless the egress is
 * FINISHED or RECEIVED. Times in epoch microseconds (`extract` is exact: numeric).
 */
export const graphStaysSql = (tail: string): string => `
  select s.id::float8 as id, s.animal_id as animal, s.control_unit_id as unit, s.establishment_id as establishment,
         (extract(epoch from s.ts_from) * 1000000)::float8 as "from", (extract(epoch from s.ts_to) * 1000000)::float8 as "to", v.vehicle
    from animal_stay s
    left join lateral (select coalesce(te.travel_id, e.id) as vehicle from animals_egress e
                         left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
                        where e.id = s.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED')) v on true
   ${tail}`;

/** A row of graphStaysSql as it comes from a driver (numbers possibly as strings). */
export interface GraphStayRow {
  id: number | string;
  animal: string;
  unit: string;
  establishment: string;
  from: number | string;
  to: number | string | null;
  vehicle: string | null;
}

export const graphStay = (r: GraphStayRow): GraphStay => ({
  id: Number(r.id),
  animal: r.animal,
  unit: r.unit,
  establishment: r.establishment,
  from: Number(r.from),
  to: r.to === null ? null : Number(r.to),
  vehicle: r.vehicle,
});

/** Every stay after id `after`, page by page (keyset on the id), through a query function with pg's `$n` placeholders. */
export async function* readGraphStays(query: (sql: string, params: unknown[]) => Promise<GraphStayRow[]>, after = 0, page = 50_000): AsyncGenerator<GraphStay[]> {
  let last = after;
  const sql = graphStaysSql('where s.id > $1 order by s.id limit $2');
  for (;;) {
    const rows = await query(sql, [last, page]);
    if (rows.length === 0) return;
    yield rows.map(graphStay);
    last = Number(rows[rows.length - 1]!.id);
  }
}
