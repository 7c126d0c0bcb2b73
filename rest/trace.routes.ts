import { traceCsv as traceCsvStream } from '../graphql/trace/trace.export.js';
import type { CsvExport } from './csv.js';
import type { Route } from './route.js';

/** One row per stay of each traced animal (the state's veterinarians' spreadsheet); the same values as the JSON answer. */
const traceCsv: CsvExport = {
  header: ['animal_id', 'str_tag_code', 'str_status', 'str_reached_by', 'int_hops', 'via_animal_id', 'via_control_unit_id', 'ts_via', 'last_control_unit_id', 'str_control_unit_code', 'str_establishment_name', 'ts_from', 'ts_to', 'str_gta_code'],
  pageSize: 5000,
  stream: traceCsvStream,
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
    extra: ['establishments', 'int_total_establishments'],
    csv: traceCsv,
    tag: 'Trace',
    errors: [400, 403, 422],
    summary:
      'The outbreak trace: one of establishment_id, control_unit_id, animal_id; ts_from, ts_to; str_direction BACKWARD, FORWARD or BOTH; int_max_hops (default unlimited). First the establishments reached (the contact chain, complete on every page, with their own total): each with its first exposure (backward: last), its fewest moves from the seed, how it was reached (animal, unit, GTA, where the caller sees them), its traced animals and its socio-environmental status. Then the traced animals (paged), each with how it was reached, its fewest moves, its path with the GTA of each leg and where it is now. Accept: text/csv answers the whole trace as CSV, one row per stay',
  },
];
