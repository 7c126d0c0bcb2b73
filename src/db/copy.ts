import { PassThrough, pipeline, Readable, Transform } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { counted, escapeLiteral, toPositional, type Query } from './sql.js';

/**
 * A bulk export as CSV (docs/architecture-notes.md: the one exception to "REST runs GraphQL documents"):
 * `query` is a SELECT of text columns, named as the header; the rows stream as RFC 4180 lines
 * (CRLF; a field with a comma, quote or line break quoted, quotes doubled; null empty).
 */
export type CsvSource = (query: Query, header?: boolean) => Readable;

const CRLF = Buffer.from('\r\n');

/** COPY ends each row with LF: CRLF instead, but not for a line break inside a quoted field. */
function crlfRows(): Transform {
  let quoted = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const parts: Buffer[] = [];
      let start = 0;
      for (let i = 0; i < chunk.length; i++) {
        const c = chunk[i];
        if (c === 0x22) quoted = !quoted;
        else if (c === 0x0a && !quoted) {
          parts.push(chunk.subarray(start, i), CRLF);
          start = i + 1;
        }
      }
      parts.push(chunk.subarray(start));
      done(null, Buffer.concat(parts));
    },
  });
}

/** COPY takes no bound parameters: each one as a literal (strings escaped as libpq does). */
function inlined(query: Query): string {
  let n = 0;
  return query.sql.replace(/\?/g, () => {
    const v = query.params[n++];
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'number' || typeof v === 'bigint') return String(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v instanceof Date) return `${escapeLiteral(v.toISOString())}::timestamptz`;
    if (typeof v === 'string') return escapeLiteral(v);
    throw new Error(`a COPY parameter of type ${typeof v}`);
  });
}

/** PostgreSQL: `COPY (…) TO STDOUT` on a connection of the pool, held until the last byte (or the client leaves). */
export function pgCsv(pool: pg.Pool): CsvSource {
  return (query, header = true) => {
    counted(query.sql);
    const out = crlfRows();
    void pool.connect().then(
      (client) => {
        const copy = client.query(copyTo(`copy (${inlined(query)}) to stdout (format csv, header ${header})`));
        // A connection left mid-COPY is not reusable: closed, not returned.
        pipeline(copy, out, (err) => client.release(err ?? undefined));
      },
      (err: Error) => out.destroy(err),
    );
    return out;
  };
}

/** The same bytes from PGlite (no COPY to a client stream there): the same SELECT read in chunks. */
export function pgliteCsv(pglite: PGlite, chunk = 5000): CsvSource {
  const field = (v: unknown): string => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return s === '' || /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return (query, header = true) => {
    counted(query.sql);
    const text = toPositional(`select * from (${query.sql}) x limit ? offset ?`);
    async function* lines(): AsyncGenerator<string> {
      for (let offset = 0; ; offset += chunk) {
        const result = await pglite.query<unknown[]>(text, [...query.params, chunk, offset], { rowMode: 'array' });
        if (offset === 0 && header) yield `${result.fields.map((f) => field(f.name)).join(',')}\r\n`;
        if (result.rows.length) yield result.rows.map((row) => `${row.map(field).join(',')}\r\n`).join('');
        if (result.rows.length < chunk) return;
      }
    }
    return Readable.from(lines());
  };
}

/**
 * One export read as several COPYs in turn (`parts`, each opened when called): up to `parallel` of
 * them run at once, each on a connection of its own, so one export uses as many of the database's
 * cores; their bytes leave in the parts' order. A part that runs ahead of the one being sent waits
 * in memory, `readAhead` bytes at most each (past that its COPY is held back), and at most
 * `parallel` parts are open ahead of the one being sent: memory stays bounded whatever the export's size.
 * A part that fails ends the whole export at once; a client that leaves ends every part's COPY.
 */
export function csvInParts(parts: Array<() => Readable>, parallel: number, readAhead: number): Readable {
  if (parts.length === 1) return parts[0]!();
  const opened: PassThrough[] = [];
  let running = 0;
  let sending = 0;
  let out: Readable | null = null;
  const openMore = () => {
    while (opened.length < parts.length && running < parallel && opened.length - sending <= parallel) {
      const buffer = new PassThrough({ readableHighWaterMark: readAhead });
      opened.push(buffer);
      running++;
      pipeline(parts[opened.length - 1]!(), buffer, (err) => {
        running--;
        if (err) out?.destroy(err);
        else openMore();
      });
    }
  };
  async function* inOrder(): AsyncGenerator<Buffer | string> {
    for (sending = 0; sending < parts.length; sending++) {
      openMore();
      for await (const chunk of opened[sending]!) yield chunk as Buffer | string;
    }
  }
  out = Readable.from(inOrder(), { objectMode: false });
  // The client gone (or a part failed): every part still open ends, its connection with it.
  out.on('close', () => {
    for (const buffer of opened) buffer.destroy();
  });
  return out;
}
