import type { CsvExport } from './csv.js';
import type { Route } from './route.js';

interface Stay {
  str_control_unit_code: string;
  str_establishment_name: string;
  ts_from: string;
  ts_to: string | null;
  str_gta_code: string | null;
}

interface Traced {
  animal_id: string;
  str_tag_code: string | null;
  str_status: string;
  str_reached_by: string;
  int_hops: number;
  via_animal_id: string | null;
  via_control_unit_id: string | null;
  ts_via: string | null;
  last_control_unit_id: string;
  stays: Stay[];
}

/** One row per stay of each traced animal (the state's veterinarians' spreadsheet); the same values as the JSON answer. */
const traceCsv: CsvExport = {
  header: ['animal_id', 'str_tag_code', 'str_status', 'str_reached_by', 'int_hops', 'via_animal_id', 'via_control_unit_id', 'ts_via', 'last_control_unit_id', 'str_control_unit_code', 'str_establishment_name', 'ts_from', 'ts_to', 'str_gta_code'],
  records: (data) =>
    (data as Traced[]).flatMap((a) =>
      a.stays.map((s) => [a.animal_id, a.str_tag_code, a.str_status, a.str_reached_by, a.int_hops, a.via_animal_id, a.via_control_unit_id, a.ts_via, a.last_control_unit_id, s.str_control_unit_code, s.str_establishment_name, s.ts_from, s.ts_to, s.str_gta_code]),
    ),
  pageSize: 5000,
};

export const traceRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/trace',
    auth: true,
    status: 200,
    body: 'input',
    page: 'page',
    operation: 'Trace',
    pick: 'trace',
    paged: true,
    extra: ['establishments'],
    csv: traceCsv,
    tag: 'Trace',
    errors: [400, 403, 422],
    summary:
      'The outbreak trace: one of establishment_id, control_unit_id, animal_id; ts_from, ts_to; str_direction BACKWARD, FORWARD or BOTH; int_max_hops. The traced animals (paged), each with how it was reached, its hops, its path with the GTA of each leg and where it is now; the establishments reached. Accept: text/csv answers the whole trace as CSV, one row per stay',
  },
];
