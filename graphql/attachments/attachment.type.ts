import { Field, FieldResolver, InputType, Int, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import { asEnum } from '../shared/enums.js';
import { PaginationMeta } from '../shared/pagination.type.js';
import { DateTime, UUID } from '../shared/scalars.js';
import type { Attachment as AttachmentRow } from '../../src/attachments/attachment.entity.js';
import { ATTACHMENT_RECORD_TYPES, ATTACHMENT_TYPES } from '../../src/attachments/attachment.rules.js';

export const AttachmentRecordTypeEnum = asEnum(ATTACHMENT_RECORD_TYPES);
registerEnumType(AttachmentRecordTypeEnum, { name: 'AttachmentRecordType', description: 'The records a file may hang from' });

@ObjectType('Attachment', { description: 'A file (PDF, JPEG, PNG or WebP, at most 10 MiB) linked to one record; seen by whoever sees the record' })
export class Attachment {
  @Field(() => UUID) id!: string;
  @Field(() => AttachmentRecordTypeEnum) str_record_type!: string;
  @Field(() => UUID, { description: 'The record it hangs from' }) record_id!: string;
  @Field(() => String, { description: "The client's file name without folders, its extension the one of the type its bytes are" }) str_file_name!: string;
  @Field(() => String, { description: `What its bytes are: ${Object.keys(ATTACHMENT_TYPES).join(', ')}` }) str_content_type!: string;
  @Field(() => Int) int_size_bytes!: number;
  @Field(() => String, { description: "sha256 of the bytes, hex" }) str_sha256!: string;
  @Field(() => UUID, { description: 'Who uploaded it (the only one who deletes it)' }) author_user_id!: string;
  @Field(() => String, { description: 'Where its bytes are downloaded: GET this path with the bearer token' }) str_content_path!: string;
  @Field(() => DateTime) ts_created_at!: Date;
  @Field(() => DateTime) ts_updated_at!: Date;
}

@Resolver(() => Attachment)
export class AttachmentFieldsResolver {
  @FieldResolver(() => String)
  str_content_path(@Root() a: AttachmentRow): string {
    return `/api/attachments/${a.id}/content`;
  }
}

@ObjectType('AttachmentPage')
export class AttachmentPage {
  @Field(() => [Attachment]) data!: Attachment[];
  @Field(() => PaginationMeta) meta!: PaginationMeta;
}

@InputType('AttachmentCreateInput', { description: 'Attachment Create: the record the file hangs from; the file is the multipart part "file" of POST /api/attachments' })
export class AttachmentCreateInput {
  @Field(() => String, { nullable: true, description: 'Client-generated uuid: the same id, record and bytes again is a replay' }) id?: string;
  @Field(() => String, { nullable: true, description: `Required: ${ATTACHMENT_RECORD_TYPES.join(', ')}` }) str_record_type?: string;
  @Field(() => String, { nullable: true, description: 'Required: a record of that type the caller may change' }) record_id?: string;
}
