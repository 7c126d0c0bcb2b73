import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { expectStatus, startApp, type TestApp } from './helpers/app.js';
import { ELF, PNG, download, filesUnder, upload } from './helpers/attachments.js';
import { count } from './helpers/db.js';
import { holding } from './helpers/movements.js';
import { makeCounty } from './helpers/places.js';

/** An S3-compatible server (s3rver, from npm) on a free local port, its bucket on a scratch folder. */
const BUCKET = 'attachments-test';
const dir = mkdtempSync(join(tmpdir(), 'attachments-s3-'));
let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
let s3: S3Client;
let app: TestApp;
beforeAll(async () => {
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 'bucket') });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  app = await startApp({
    ATTACHMENTS_DIR: join(dir, 'local'), S3_BUCKET: BUCKET, S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: credentials.accessKeyId, S3_SECRET_ACCESS_KEY: credentials.secretAccessKey, S3_PREFIX: 'files/',
  });
});
let serverClosed = false;
afterAll(async () => {
  await app.close();
  if (!serverClosed) await server.close();
});

const keys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key);

test('with S3_* set, the bytes go to the bucket under S3_PREFIX + id, unchanged; download streams them back; delete removes them; a refused upload leaves no object and nothing on local disk', async () => {
  const county = await makeCounty(app);
  const { owner, unit } = await holding(app, county);
  const fields = { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId };
  const photo = Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024, 7)]);
  const res = await upload(app, { token: owner.access, fields, file: { bytes: photo, name: 'curral.png' } });
  expectStatus(res, 201);
  const id = res.body.data.id as string;
  expect(await keys()).toEqual([`files/${id}`]);
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `files/${id}` }));
  expect(Buffer.from(await object.Body!.transformToByteArray()).equals(photo)).toBe(true);
  expect(object.ContentType).toBe('image/png');
  const got = await download(app, res.body.data.str_content_path, owner.access);
  expect(got.status).toBe(200);
  expect(got.headers.get('content-type')).toBe('image/png');
  expect(got.bytes.equals(photo)).toBe(true);

  const refused = await upload(app, { token: owner.access, fields, file: { bytes: ELF, name: 'x.png' } });
  expect(refused.status).toBe(422);
  expect(await keys()).toEqual([`files/${id}`]);
  expect(filesUnder(join(dir, 'local'))).toEqual([]);

  expect((await app.call('DELETE', `/api/attachments/${id}`, { token: owner.access })).status).toBe(204);
  expect(await keys()).toEqual([]);
  expect(await count(app, 'attachment where id = ?', [id])).toBe(0);
});

test('when the bucket cannot be reached the upload is a 503 UNAVAILABLE (safe to retry) and leaves no row, no event and no file', async () => {
  const county = await makeCounty(app);
  const { owner, unit } = await holding(app, county);
  await server.close();
  serverClosed = true;
  const res = await upload(app, { token: owner.access, fields: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId }, file: { bytes: PNG, name: 'a.png' } });
  expect({ status: res.status, error: res.body.error, retryAfter: res.headers.get('retry-after') }).toEqual({ status: 503, error: 'UNAVAILABLE', retryAfter: '5' });
  expect(await count(app, 'attachment where record_id = ?', [unit.establishmentId])).toBe(0);
  expect(await count(app, "event where str_record_type = 'Attachment' and str_payload::jsonb -> 'refs' ->> 'record_id' = ?", [unit.establishmentId])).toBe(0);
  expect(filesUnder(join(dir, 'local'))).toEqual([]);
});
