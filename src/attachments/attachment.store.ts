import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import { S3AttachmentStore } from './attachment.s3-store.js';

/** Where attachments' bytes are kept, each under its attachment's id. */
export interface AttachmentStore {
  readonly kind: 'DISK' | 'S3';
  /** A folder on local disk where uploads are written while they arrive (the disk store's own file system, so a put is a rename). */
  readonly incomingDir: string;
  /** Takes the received file at `file` in under `key` (the file may be gone afterwards). */
  put(key: string, file: string, size: number, contentType: string): Promise<void>;
  /** The bytes; rejects when there are none under the key. */
  get(key: string): Promise<Readable>;
  /** Removes the bytes; nothing under the key is not an error. */
  delete(key: string): Promise<void>;
}

/** ATTACHMENTS_DIR/<first two characters of the key>/<key>: a folder holds at most a 256th of the files. */
export class DiskAttachmentStore implements AttachmentStore {
  readonly kind = 'DISK';
  readonly incomingDir: string;

  constructor(private readonly dir: string) {
    this.incomingDir = join(dir, '.incoming');
  }

  private pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), key);
  }

  async put(key: string, file: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(join(target, '..'), { recursive: true });
    await rename(file, target);
  }

  async get(key: string): Promise<Readable> {
    // Opened before the answer starts, so a missing file is an error and not a truncated download.
    const handle = await open(this.pathOf(key), 'r');
    return handle.createReadStream();
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}

/** The store the configuration names: an S3-compatible bucket when S3_BUCKET is set, else the disk. */
export function openAttachmentStore(config: Config, log: Logger): AttachmentStore {
  return config.S3_BUCKET ? new S3AttachmentStore(config, join(config.ATTACHMENTS_DIR, '.incoming'), log) : new DiskAttachmentStore(config.ATTACHMENTS_DIR);
}
