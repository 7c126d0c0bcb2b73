/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled; null is empty. */
const field = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' ? v : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const csvLine = (values: unknown[]): string => `${values.map(field).join(',')}\r\n`;

/** How a paged answer becomes CSV: the header and the rows of one page's `data`. */
export interface CsvExport {
  header: string[];
  records: (data: unknown[]) => unknown[][];
  /** Page size while exporting (the list's largest). */
  pageSize: number;
}
