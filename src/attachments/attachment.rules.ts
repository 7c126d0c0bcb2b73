/** The records a file may hang from (DOMAIN.md: a GTA PDF, a photo, a document). */
export const ATTACHMENT_RECORD_TYPES = ['GTA', 'ANIMALS_EGRESS', 'ANIMALS_INGRESS', 'OCCURRENCE', 'ANIMAL', 'ESTABLISHMENT'] as const;
export type AttachmentRecordType = (typeof ATTACHMENT_RECORD_TYPES)[number];

/** What the bytes may be, with the extension a stored name ends with. */
export const ATTACHMENT_TYPES = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' } as const;
export type AttachmentContentType = keyof typeof ATTACHMENT_TYPES;

/** 10 MiB (CONTRACT.md, 413 beyond). */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;

export const isAttachmentType = (mime: string | undefined): mime is AttachmentContentType => mime !== undefined && Object.hasOwn(ATTACHMENT_TYPES, mime);

const MAX_NAME = 255;

/**
 * The name a file is kept under: the client's base name without folders, control characters or
 * the characters a file system or a Content-Disposition header trips on, its extension replaced
 * by the one of the type its bytes are (a `.pdf` that is a PNG is kept as `.png`).
 */
export function storedFileName(given: string | null | undefined, type: AttachmentContentType): string {
  const ext = ATTACHMENT_TYPES[type];
  const base = (given ?? '').split(/[\\/]/).pop()!
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}"*:<>?|]/gu, '')
    .trim()
    .replace(/^\.+/, '');
  const stem = (base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base).trim() || 'attachment';
  return `${[...stem].slice(0, MAX_NAME - ext.length - 1).join('')}.${ext}`;
}
