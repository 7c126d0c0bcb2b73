import { PassThrough } from 'node:stream';
import { csvLine, type CsvExport } from './csv.js';

interface PageResult {
  data?: unknown;
  meta?: unknown;
}

/**
 * Writes the header and every page as CSV, reading the next page only when the client has taken
 * the last one (backpressure), so the service holds one page at a time however long the answer.
 */
export function streamCsv(csv: CsvExport, first: PageResult, pageOf: (n: number) => Promise<PageResult>, onError: (err: unknown) => void): PassThrough {
  const out = new PassThrough();
  const write = async (chunk: string) => {
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  };
  void (async () => {
    try {
      await write(csvLine(csv.header));
      let page = first;
      const pages = (page.meta as { int_total_pages?: number } | undefined)?.int_total_pages ?? 1;
      for (let n = 1; ; n++) {
        for (const row of csv.records((page.data as unknown[]) ?? [])) await write(csvLine(row));
        if (n >= pages) break;
        page = await pageOf(n + 1);
      }
      out.end();
    } catch (err) {
      onError(err);
      out.destroy(err instanceof Error ? err : new Error('CSV export failed'));
    }
  })();
  return out;
}
