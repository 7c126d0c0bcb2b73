import busboy from 'busboy';
import type { Context as KoaContext } from 'koa';
import type { Files, IncomingFile } from '../graphql/files.js';
import { DomainError } from '../src/shared/errors.js';

/** Room for the form's fields and part headers around the file. */
const ENVELOPE_BYTES = 64 * 1024;
const MAX_FIELDS = 10;
const MAX_FIELD_BYTES = 1024;

/**
 * Reads a multipart/form-data upload: its short text fields, and its one part "file" handed to
 * `receiver` as it streams (which stops it past 10 MiB). A declared length past the limit is
 * refused before a byte is read; a refused upload closes the connection after answering, so the
 * rest of the body is never read.
 */
export async function readMultipart(ctx: KoaContext, receiver: Files): Promise<{ fields: Record<string, string>; file: IncomingFile | null }> {
  if (!ctx.is('multipart/form-data')) throw new DomainError('BAD_REQUEST', 'the request body must be multipart/form-data: the file as the part "file", the other values as fields');
  if ((ctx.request.length ?? 0) > receiver.maxBytes + ENVELOPE_BYTES) {
    ctx.set('Connection', 'close');
    throw receiver.tooLarge();
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: ctx.req.headers, defParamCharset: 'utf8', limits: { files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1, fieldSize: MAX_FIELD_BYTES, fieldNameSize: 100, fileSize: receiver.maxBytes + 1 } });
  } catch {
    throw new DomainError('BAD_REQUEST', 'malformed multipart/form-data header (no boundary)');
  }
  const fields: Record<string, string> = Object.create(null);
  let file: Promise<IncomingFile> | null = null;
  let problem: DomainError | null = null;
  const stop = (err: unknown, reject: (e: unknown) => void) => {
    ctx.req.unpipe(parser);
    ctx.req.resume();
    ctx.set('Connection', 'close');
    reject(err);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('field', (name, value, info) => {
        if (info.nameTruncated || info.valueTruncated) problem ??= DomainError.field(name.slice(0, 100), `is over ${MAX_FIELD_BYTES} bytes`);
        else fields[name] = value;
      });
      parser.on('file', (name, stream, info) => {
        if (name !== 'file' || file) {
          stream.resume();
          problem ??= DomainError.field(name.slice(0, 100), name === 'file' ? 'one file per upload' : 'is not a file part this upload takes: send the file as "file"');
          return;
        }
        file = receiver.receive(stream, info.filename ?? null);
        file.catch((err: unknown) => stop(err, reject));
      });
      for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) parser.on(limit, () => (problem ??= DomainError.field('body', `at most ${MAX_FIELDS} fields and one file`)));
      parser.on('error', () => stop(new DomainError('BAD_REQUEST', 'malformed multipart/form-data body'), reject));
      parser.on('close', resolve);
      ctx.req.on('error', reject);
      ctx.req.pipe(parser);
    });
  } catch (err) {
    // A file that arrived whole before the failure is not kept.
    await (file as Promise<IncomingFile> | null)?.then((f) => receiver.discard(f), () => undefined);
    throw err;
  }
  const received: IncomingFile | null = file ? await file : null;
  if (problem) {
    if (received) await receiver.discard(received);
    throw problem;
  }
  return { fields: { ...fields }, file: received };
}
