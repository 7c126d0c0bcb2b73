import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { BaseEntity } from '../shared/base.entity.js';
import type { AttachmentContentType, AttachmentRecordType } from './attachment.rules.js';

/** A file linked to one record (DOMAIN.md, "Occurrences, attachments, history"); its bytes are in the attachment store under its id. */
@Entity({ tableName: 'attachment' })
export class Attachment extends BaseEntity {
  @Property({ type: 'text' })
  str_record_type!: AttachmentRecordType;

  /** The record it hangs from: who sees the record sees its attachments. */
  @Property({ type: 'uuid' })
  record_id!: string;

  @Property({ type: 'text' })
  str_file_name!: string;

  /** Decided by the bytes, never by the name or the client's header. */
  @Property({ type: 'text' })
  str_content_type!: AttachmentContentType;

  @Property({ type: 'integer' })
  int_size_bytes!: number;

  @Property({ type: 'text' })
  str_sha256!: string;

  /** Who uploaded it: the only one who deletes it. */
  @Property({ type: 'uuid' })
  author_user_id!: string;
}
