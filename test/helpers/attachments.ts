import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Reply, TestApp } from './app.js';

/** A 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]), Buffer.alloc(64, 1), Buffer.from([0xff, 0xd9])]);
export const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WEBPVP8 '), Buffer.alloc(32, 0)]);
/** The start of a Linux executable. */
export const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120, 0)]);

export interface UploadOptions {
  fields?: Record<string, string>;
  /** The file part: its bytes, name and the Content-Type the client claims. */
  file?: { bytes: Buffer; name: string; type?: string } | null;
  token?: string;
}

/** POST /api/attachments as a browser's form would send it (multipart/form-data). */
export async function upload(app: TestApp, o: UploadOptions): Promise<Reply> {
  const form = new FormData();
  for (const [k, v] of Object.entries(o.fields ?? {})) form.append(k, v);
  if (o.file) form.append('file', new Blob([new Uint8Array(o.file.bytes)], { type: o.file.type ?? 'application/octet-stream' }), o.file.name);
  const res = await fetch(`${app.url}/api/attachments`, { method: 'POST', body: form, headers: o.token ? { authorization: `Bearer ${o.token}` } : {} });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, sql: Number(res.headers.get('x-sql-statements') ?? NaN) };
}

/** GET the bytes of an attachment. */
export async function download(app: TestApp, path: string, token: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** Every file under a folder, recursively (the store's and the incoming folder's). */
export function filesUnder(dir: string): string[] {
  let out: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const e of entries) out = e.isDirectory() ? [...out, ...filesUnder(join(dir, e.name))] : [...out, join(dir, e.name)];
  return out;
}
