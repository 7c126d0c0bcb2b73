import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { fileTypeFromFile } from 'file-type';
import type { Db } from '../db/sql.js';
import type { Actor } from '../identity/actor.js';
import { DomainError } from '../shared/errors.js';
import { appendEvent } from '../shared/events.js';
import { isUuid, newId } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import type { PageInput } from '../shared/pagination.js';
import { bodyHash, replayCreate } from '../shared/replay.js';
import { mustFindVisible, readVisible, readVisiblePage, type PageOptions, type Read, type ReadPage, type Scope } from '../shared/scoped-query.js';
import type { Filters } from '../shared/search.js';
import { Checker } from '../shared/validation.js';
import { Attachment } from './attachment.entity.js';
import { ATTACHED_RECORDS, attachmentPolicy } from './attachment.policy.js';
import { ATTACHMENT_SEARCH, attachmentSource, recordVisible } from './attachment.reader.js';
import { ATTACHMENT_RECORD_TYPES, ATTACHMENT_TYPES, isAttachmentType, storedFileName, type AttachmentContentType, type AttachmentRecordType } from './attachment.rules.js';
import type { AttachmentStore } from './attachment.store.js';
import { discardFile, receiveFile, type IncomingFile } from './attachment.upload.js';

/** Attachment Create: the record the file hangs from (the file itself arrives beside it, multipart). */
export interface AttachmentInput {
  id?: string | null;
  str_record_type?: string | null;
  record_id?: string | null;
}

const ACCEPTED = 'a PDF, JPEG, PNG or WebP file';

export class AttachmentService {
  constructor(
    private readonly store: AttachmentStore,
    private readonly log: Logger,
  ) {}

  /** Takes an arriving file onto local disk within the 10 MiB limit (413 past it); see receiveFile. */
  receive(source: Readable, name: string | null): Promise<IncomingFile> {
    return receiveFile(this.store.incomingDir, source, name);
  }

  discard(file: IncomingFile): Promise<void> {
    return discardFile(file);
  }

  read(db: Db, actor: Actor, id: string): Promise<Read<Attachment>> {
    return readVisible(db, actor, attachmentSource, attachmentPolicy.scope(actor), id, 'attachment');
  }

  /**
   * The attachments the caller sees, newest first. Naming a record (`str_record_type` and
   * `record_id`) lists that record's, after checking the caller sees it: 404 when it does not,
   * exactly as for a record that does not exist.
   */
  async page(db: Db, actor: Actor, filters: Filters, page: PageInput | null | undefined, options: PageOptions): Promise<ReadPage<Attachment>> {
    let scope: Scope = attachmentPolicy.scope(actor);
    const recordId = filters?.record_id;
    if (recordId !== undefined && recordId !== null) {
      const type = filters?.str_record_type;
      const check = new Checker();
      check.when(!isUuid(recordId), 'record_id', 'must be a uuid');
      check.when(!isRecordType(type), 'str_record_type', `is required with record_id: one of ${ATTACHMENT_RECORD_TYPES.join(', ')}`);
      check.throwIfAny();
      const id = (recordId as string).toLowerCase();
      if (!(await recordVisible(db, actor, type as AttachmentRecordType, id))) throw DomainError.notFound(ATTACHED_RECORDS[type as AttachmentRecordType].noun);
      // Seen through the record's own policy just now: its attachments need no second look.
      scope = { sql: 'at.str_record_type = ? and at.record_id = ?', params: [type, id] };
    }
    return readVisiblePage(db, actor, attachmentSource, scope, ATTACHMENT_SEARCH, filters, page, options);
  }

  /**
   * POST /api/attachments: a file linked to a record the caller may change. The type is what the
   * bytes are (file-type), never the name or the client's Content-Type. The bytes go into the
   * store and the row and its ATTACHMENT_ADDED event into the database in one transaction: a
   * failure anywhere leaves neither a row nor a file. A client id makes a retry answer the same.
   */
  async create(em: EntityManager, actor: Actor, input: AttachmentInput, file: IncomingFile | null): Promise<Attachment> {
    const check = new Checker();
    const clientId = typeof input.id === 'string' ? input.id.toLowerCase() : null;
    if (clientId) check.when(!isUuid(clientId), 'id', 'must be a uuid');
    check.required('str_record_type', input.str_record_type).required('record_id', input.record_id);
    if (input.str_record_type) check.when(!isRecordType(input.str_record_type), 'str_record_type', `must be one of ${ATTACHMENT_RECORD_TYPES.join(', ')}`);
    if (input.record_id) check.when(!isUuid(input.record_id), 'record_id', 'must be a uuid');
    if (!file) check.add('file', 'is required: send the file as the multipart/form-data part "file" of POST /api/attachments');
    else if (file.size === 0) check.add('file', 'is empty');
    check.throwIfAny();
    const type = input.str_record_type as AttachmentRecordType;
    const recordId = input.record_id!.toLowerCase();
    await attachmentPolicy.recordToChange(em, actor, type, recordId);
    const contentType = await contentTypeOf(file!);
    const hash = bodyHash({ str_record_type: type, record_id: recordId, str_sha256: file!.sha256 });
    const id = clientId ?? newId();
    let stored = false;
    try {
      return await em.transactional(async (tx) => {
        if (clientId) {
          const replayed = await replayCreate(tx, Attachment, 'attachment', 'Attachment', 'ATTACHMENT_ADDED', clientId, hash, (r) => r.author_user_id === actor.userId);
          if (replayed) return replayed;
        }
        const attachment = tx.create(Attachment, {
          id,
          str_record_type: type,
          record_id: recordId,
          str_file_name: storedFileName(file!.name, contentType),
          str_content_type: contentType,
          int_size_bytes: file!.size,
          str_sha256: file!.sha256,
          author_user_id: actor.userId,
        });
        await tx.persist(attachment).flush();
        await appendEvent(tx, {
          type: 'ATTACHMENT_ADDED',
          recordType: 'Attachment',
          recordId: id,
          actorId: actor.userId,
          payload: {
            changes: { str_file_name: attachment.str_file_name, str_content_type: contentType, int_size_bytes: attachment.int_size_bytes, str_sha256: attachment.str_sha256 },
            refs: { str_record_type: type, record_id: recordId },
            body_hash: hash,
          },
        });
        // Last, so that nothing after it can fail but the commit: then the bytes are taken out again.
        await this.store.put(id, file!.path, file!.size, contentType);
        stored = true;
        return attachment;
      });
    } catch (err) {
      if (stored) await this.unstore(em, id);
      throw err;
    }
  }

  /** After a failed commit: the bytes go unless a row holds them after all (a commit whose answer was lost). */
  private async unstore(em: EntityManager, id: string): Promise<void> {
    try {
      const [row] = await em.execute<{ n: number }[]>('select count(*)::int as n from attachment where id = ?', [id]);
      if (row!.n === 0) await this.store.delete(id);
    } catch (err) {
      this.log.error({ err, attachmentId: id }, 'an attachment whose create failed could not be removed from the store');
    }
  }

  /** DELETE /api/attachments/:id: by its author; the row and ATTACHMENT_DELETED commit first, then the bytes go. */
  async remove(em: EntityManager, actor: Actor, id: string): Promise<boolean> {
    const found = await mustFindVisible(em, Attachment, 'attachment at', attachmentPolicy.scope(actor), id.toLowerCase(), 'attachment');
    attachmentPolicy.canDelete(actor, found);
    await em.transactional(async (tx) => {
      const deleted = await tx.execute<{ id: string }[]>('delete from attachment where id = ? returning id', [found.id]);
      if (!deleted.length) throw DomainError.notFound('attachment');
      await appendEvent(tx, {
        type: 'ATTACHMENT_DELETED',
        recordType: 'Attachment',
        recordId: found.id,
        actorId: actor.userId,
        payload: { changes: { str_file_name: found.str_file_name, str_sha256: found.str_sha256 }, refs: { str_record_type: found.str_record_type, record_id: found.record_id } },
      });
    });
    // A failure here leaves bytes no row names (logged): never a row whose bytes are gone.
    await this.store.delete(found.id).catch((err: unknown) => this.log.error({ err, attachmentId: found.id }, 'a deleted attachment could not be removed from the store'));
    return true;
  }

  /** The bytes of an attachment the caller was just shown (the door read it through the policy). */
  open(attachment: { id: string }): Promise<Readable> {
    return this.store.get(attachment.id);
  }
}

const isRecordType = (v: unknown): v is AttachmentRecordType => typeof v === 'string' && (ATTACHMENT_RECORD_TYPES as readonly string[]).includes(v);

/** What the bytes are; 422 naming `file` for anything but the four accepted types. */
async function contentTypeOf(file: IncomingFile): Promise<AttachmentContentType> {
  const detected = await fileTypeFromFile(file.path);
  if (isAttachmentType(detected?.mime)) return detected.mime;
  throw DomainError.field('file', `must be ${ACCEPTED} (${Object.keys(ATTACHMENT_TYPES).join(', ')}); its bytes are ${detected ? detected.mime : 'of no type it accepts'}`);
}
