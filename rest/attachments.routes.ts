import { resourceRoutes } from './resource.js';
import type { Route } from './route.js';

const base = { auth: true, tag: 'Attachment' } as const;

/** Attachments: files linked to a record; uploaded multipart, downloaded as their bytes, the rest JSON. */
export const attachmentRoutes: Route[] = [
  {
    ...base,
    method: 'POST',
    path: '/api/attachments',
    operation: 'AttachmentCreate',
    status: 201,
    body: 'input',
    upload: true,
    pick: 'createAttachment',
    errors: [400, 403, 404, 413],
    summary:
      'Upload a file (multipart/form-data: the part "file", and the fields str_record_type — GTA, ANIMALS_EGRESS, ANIMALS_INGRESS, OCCURRENCE, ANIMAL or ESTABLISHMENT — and record_id, optionally id) linked to a record the caller may change; PDF, JPEG, PNG or WebP by its bytes (422 naming "file" otherwise), at most 10 MiB (413)',
  },
  {
    ...base,
    method: 'GET',
    path: '/api/attachments/:id/content',
    operation: 'AttachmentContent',
    status: 200,
    params: { id: { variable: 'id', uuid: true } },
    download: true,
    pick: 'attachment',
    errors: [400, 404],
    summary: 'The bytes of an attachment, with its content type and as a download (Content-Disposition: attachment)',
  },
  ...resourceRoutes({
    path: '/api/attachments',
    tag: 'Attachment',
    fields: { list: 'attachments', read: 'attachment', remove: 'deleteAttachment' },
    noun: ['attachment', 'attachments'],
    summaries: {
      index: "Attachments the caller sees; ?str_record_type=...&record_id=... lists one record's (404 when the caller does not see the record)",
      search: 'Search attachments (str_record_type with record_id for one record, str_content_type, author_user_id, str_sha256, ts_* ranges, str_query on the file name)',
      remove: 'Its author deletes an attachment (403 for anyone else); the bytes go with it',
    },
    // A record filter naming a record the caller does not see answers 404 (index and search alike).
  }).map((r): Route => (r.paged ? { ...r, errors: [404] } : r)),
];
