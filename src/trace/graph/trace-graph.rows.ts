import type { Interner } from './trace-graph.ids.js';
import type { GraphStay } from './trace-graph.types.js';

/**
 * The stays as `GraphStay` rows, the vehicle resolved as Migration0067TraceStayKey's VEHICLE: the
 * egress that closed the stay, FINISHED or RECEIVED, and its travel when its embark is not released
 * (at most one such embark per egress: travel_embark_egress_once). `times` picks how the times come
 * and the ids out: `micros`, times as epoch microseconds in float8 (exact below 2^53; what a row
 * query parses into a number) and ids as text; `raw`, timestamptz and uuid as they are (the binary
 * COPY's int8 microseconds since 2000 and 16 bytes).
 */
export function staysSelect(times: 'micros' | 'raw', where = ''): string {
  const t = (c: string) => (times === 'raw' ? `s.${c}` : `(extract(epoch from s.${c}) * 1000000)::int8::float8`);
  const id = times === 'raw' ? 's.id' : 's.id::float8';
  const text = times === 'raw' ? '' : '::text';
  return `select ${id} as id, s.animal_id${text} as animal, s.control_unit_id${text} as unit, s.establishment_id${text} as establishment,
                 ${t('ts_from')} as "from", ${t('ts_to')} as "to", coalesce(te.travel_id, e.id)${text} as vehicle,
                 s.animals_egress_id${text} as egress
    from animal_stay s
    left join animals_egress e on e.id = s.animals_egress_id and e.str_status in ('FINISHED', 'RECEIVED')
    left join travel_embark te on te.animals_egress_id = e.id and te.ts_released_at is null
    ${where}`;
}

/** A row of `staysSelect('micros')` read as an array. */
export function stayOfTuple(r: unknown[], ids: Interner): GraphStay {
  return {
    id: r[0] as number,
    animal: ids.of(r[1] as string),
    unit: ids.of(r[2] as string),
    establishment: ids.of(r[3] as string),
    from: r[4] as number,
    to: (r[5] as number | null) ?? null,
    vehicle: r[6] === null ? null : ids.of(r[6] as string),
    egress: r[7] === null ? null : ids.of(r[7] as string),
  };
}

/** The stays as the in-memory walk reads them (GraphStay), the rows `tail` selects (a where clause, an order, a limit: the caller's placeholders), as objects. */
export const graphStaysSql = (tail: string): string => staysSelect('micros', tail);

/** A row of graphStaysSql (staysSelect's columns by name) as it comes from a driver (numbers possibly as strings). */
export interface GraphStayRow {
  id: number | string;
  animal: string;
  unit: string;
  establishment: string;
  from: number | string;
  to: number | string | null;
  vehicle: string | null;
  egress: string | null;
}

export const graphStay = (r: GraphStayRow): GraphStay => ({
  id: Number(r.id),
  animal: r.animal,
  unit: r.unit,
  establishment: r.establishment,
  from: Number(r.from),
  to: r.to === null ? null : Number(r.to),
  vehicle: r.vehicle,
  egress: r.egress,
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
