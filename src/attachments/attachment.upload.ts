import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { ATTACHMENT_MAX_BYTES } from './attachment.rules.js';

/** A file received whole and within the limit, waiting on local disk for its checks. */
export interface IncomingFile {
  path: string;
  size: number;
  sha256: string;
  /** The name the client gave (a hint for the stored name, never for the type). */
  name: string | null;
}

export const tooLarge = (): DomainError => new DomainError('PAYLOAD_TOO_LARGE', `an attachment is at most ${ATTACHMENT_MAX_BYTES} bytes (10 MiB)`);

/**
 * Writes an arriving file to `dir`, counting and hashing as it passes: the first byte past the
 * limit stops it with PAYLOAD_TOO_LARGE, so nothing larger is ever held, in memory or on disk. A
 * failed receive leaves no file behind.
 */
export async function receiveFile(dir: string, source: Readable, name: string | null): Promise<IncomingFile> {
  const path = join(dir, `${newId()}.part`);
  const hash = createHash('sha256');
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > ATTACHMENT_MAX_BYTES) return done(tooLarge());
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await mkdir(dir, { recursive: true });
    await pipeline(source, counter, createWriteStream(path, { flags: 'wx' }));
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
  return { path, size, sha256: hash.digest('hex'), name };
}

/** Removes what receiveFile wrote (already moved into the store or not). */
export const discardFile = (file: IncomingFile): Promise<void> => rm(file.path, { force: true });
