/** A traced animal of a JSON page, the fields its CSV rows carry. */
export interface TracedJson {
  animal_id: string;
  str_tag_code: string | null;
  str_status: string;
  str_reached_by: string;
  int_hops: number;
  via_animal_id: string | null;
  via_control_unit_id: string | null;
  ts_via: string | null;
  last_control_unit_id: string | null;
  stays: { str_control_unit_code: string; str_establishment_name: string; ts_from: string; ts_to: string | null; str_gta_code: string | null }[];
}

/** The CSV lines (header apart) the JSON pages of a trace stand for: one per stay of each traced animal, in rank order. */
export function csvOfPages(animals: TracedJson[]): string[] {
  const field = (v: unknown) => (v === null || v === undefined ? '' : /[",\r\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return animals.flatMap((a) =>
    a.stays.map((s) =>
      [a.animal_id, a.str_tag_code, a.str_status, a.str_reached_by, a.int_hops, a.via_animal_id, a.via_control_unit_id, a.ts_via, a.last_control_unit_id, s.str_control_unit_code, s.str_establishment_name, s.ts_from, s.ts_to, s.str_gta_code]
        .map(field)
        .join(','),
    ),
  );
}

/** The header of a trace's CSV. */
export const TRACE_CSV_HEADER =
  'animal_id,str_tag_code,str_status,str_reached_by,int_hops,via_animal_id,via_control_unit_id,ts_via,last_control_unit_id,str_control_unit_code,str_establishment_name,ts_from,ts_to,str_gta_code';
