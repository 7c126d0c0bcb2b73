import type { Readable } from 'node:stream';
import { ATTACHMENT_MAX_BYTES, ATTACHMENT_TYPES } from '../src/attachments/attachment.rules.js';
import { tooLarge, type IncomingFile } from '../src/attachments/attachment.upload.js';
import type { DomainError } from '../src/shared/errors.js';
import type { Context } from './context.js';

export type { IncomingFile };

/**
 * The bytes a request carries in or out, which GraphQL's JSON cannot hold: an upload received
 * before its operation runs (the operation's resolver checks and keeps it, or refuses it), and the
 * content of an attachment the operation has just shown the caller. REST's multipart and download
 * routes reach the store only through this, never the core.
 */
export interface Files {
  maxBytes: number;
  tooLarge(): DomainError;
  receive(source: Readable, name: string | null): Promise<IncomingFile>;
  discard(file: IncomingFile): Promise<void>;
  open(attachment: { id: string }): Promise<Readable>;
}

export function filesOf(ctx: Context): Files {
  const attachments = ctx.core.attachments;
  return {
    maxBytes: ATTACHMENT_MAX_BYTES,
    tooLarge,
    receive: (source, name) => attachments.receive(source, name),
    discard: (file) => attachments.discard(file),
    open: (attachment) => attachments.open(attachment),
  };
}

/** For the OpenAPI document: what a download may answer. */
export const DOWNLOAD_TYPES = Object.keys(ATTACHMENT_TYPES);
