import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { expectStatus, mustPost, useApp } from './helpers/app.js';
import { ELF, JPEG, PDF, PNG, WEBP, download, filesUnder, upload } from './helpers/attachments.js';
import { count, rows } from './helpers/db.js';
import { member, official } from './helpers/factories.js';
import { holding, issueGta, type Holding } from './helpers/movements.js';
import { ISO_Z, UUID_RE, makeCounty, useCounty } from './helpers/places.js';
import { animalsStaying } from './helpers/stays.js';
import { eventsOf } from './helpers/tags-out.js';

const MAX = 10 * 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'attachments-test-'));
const app = useApp({ ATTACHMENTS_DIR: dir });
const county = useCounty(app);

const KEYS = ['id', 'str_record_type', 'record_id', 'str_file_name', 'str_content_type', 'int_size_bytes', 'str_sha256', 'author_user_id', 'str_content_path', 'ts_created_at', 'ts_updated_at'].sort();
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const stored = () => filesUnder(dir).filter((f) => !f.includes('.incoming'));
const incoming = () => filesUnder(join(dir, '.incoming'));
const rowsOf = (recordId: string) => count(app, 'attachment where record_id = ?', [recordId]);

/** A holding with one record of every type that takes attachments. */
async function recordsOf(farm: Holding, to: Holding): Promise<Record<string, string>> {
  const { animalIds } = await animalsStaying(app, farm.unit.unitId, 1);
  const gta = await issueGta(app, farm.owner.access, farm.unit, to.unit, 1);
  const occurrence = (await mustPost(app, '/api/occurrences', farm.owner.access, { str_type: 'OTHER', control_unit_id: farm.unit.unitId, str_description: 'Cerca quebrada' })).body.data;
  const egressId = randomUUID();
  const ingressId = randomUUID();
  const em = app.service.orm.em.fork();
  await em.execute('insert into animals_egress (id, from_control_unit_id, to_control_unit_id, bl_move_with_tag_reading) values (?, ?, ?, true)', [egressId, farm.unit.unitId, to.unit.unitId]);
  await em.execute('insert into animals_ingress (id, to_control_unit_id, bl_move_with_tag_reading) values (?, ?, true)', [ingressId, farm.unit.unitId]);
  return { GTA: gta.id, ANIMALS_EGRESS: egressId, ANIMALS_INGRESS: ingressId, OCCURRENCE: occurrence.id, ANIMAL: animalIds[0]!, ESTABLISHMENT: farm.unit.establishmentId };
}

describe('attachments: upload, list, read, download, delete', () => {
  test('a file on each of the six record types: the record, its event, its bytes on disk, listed per record, read and downloaded as they were sent (REST and GraphQL)', async () => {
    const farm = await holding(app, county);
    const feedlot = await holding(app, county);
    const records = await recordsOf(farm, feedlot);
    const files = { GTA: [PDF, 'gta.pdf'], ANIMALS_EGRESS: [JPEG, 'carga.jpg'], ANIMALS_INGRESS: [WEBP, 'chegada.webp'], OCCURRENCE: [PNG, 'cerca.png'], ANIMAL: [JPEG, 'boi.jpeg'], ESTABLISHMENT: [PDF, 'car.pdf'] } as const;
    const types = { GTA: 'application/pdf', ANIMALS_EGRESS: 'image/jpeg', ANIMALS_INGRESS: 'image/webp', OCCURRENCE: 'image/png', ANIMAL: 'image/jpeg', ESTABLISHMENT: 'application/pdf' } as const;
    const before = stored().length;
    for (const [type, recordId] of Object.entries(records)) {
      const [bytes, name] = files[type as keyof typeof files];
      const res = await upload(app, { token: farm.owner.access, fields: { str_record_type: type, record_id: recordId.toUpperCase() }, file: { bytes, name, type: 'application/octet-stream' } });
      expectStatus(res, 201);
      const a = res.body.data;
      expect(Object.keys(a).sort()).toEqual(KEYS);
      expect(a).toMatchObject({
        str_record_type: type, record_id: recordId, str_content_type: types[type as keyof typeof types], int_size_bytes: bytes.length, str_sha256: sha(bytes),
        author_user_id: farm.owner.user.id, str_content_path: `/api/attachments/${a.id}/content`,
      });
      expect(a.str_file_name.split('.')[0]).toBe(name.split('.')[0]);
      expect(a.id).toMatch(UUID_RE);
      expect(a.ts_created_at).toMatch(ISO_Z);
      const events = await eventsOf(app, 'Attachment', a.id);
      expect(events.map((e) => e.str_type)).toEqual(['ATTACHMENT_ADDED']);
      expect(events[0]!.payload).toMatchObject({ changes: { str_sha256: sha(bytes), int_size_bytes: bytes.length }, refs: { str_record_type: type, record_id: recordId } });

      const list = await app.call('GET', `/api/attachments?str_record_type=${type}&record_id=${recordId}`, { token: farm.owner.access });
      expectStatus(list, 200);
      expect(list.body.data).toEqual([a]);
      expect(list.body.meta).toEqual({ int_current_page: 1, int_max_results: 50, int_total_results: 1, int_total_pages: 1 });
      const read = await app.call('GET', `/api/attachments/${a.id}`, { token: farm.owner.access });
      expect(read.body.data).toEqual(a);
      const got = await download(app, a.str_content_path, farm.owner.access);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
      expect(got.headers.get('content-type')).toBe(types[type as keyof typeof types]);
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${a.str_file_name}"`);
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(stored().length).toBe(before + 6);
    expect(incoming()).toEqual([]);

    const all = await app.call('POST', '/api/attachments/search', { token: farm.owner.access, body: { str_content_type: 'application/pdf', str_query: 'car' } });
    expect(all.body.data.map((x: { str_record_type: string }) => x.str_record_type)).toEqual(['ESTABLISHMENT']);
    const gql = await app.graphql(
      `query($f: JSONObject) { attachments(filter: $f) { data { id str_file_name str_content_path } meta { int_total_results } } }`,
      { f: { str_record_type: 'GTA', record_id: records.GTA } },
      farm.owner.access,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.attachments.meta.int_total_results).toBe(1);
    expect(gql.body.data.attachments.data[0].str_file_name).toBe('gta.pdf');
    // The destination's owner sees the GTA, so its attachment, but not the origin's animal.
    const seen = await app.call('GET', `/api/attachments?str_record_type=GTA&record_id=${records.GTA}`, { token: feedlot.owner.access });
    expect(seen.body.meta.int_total_results).toBe(1);
    const unseen = await app.call('GET', `/api/attachments?str_record_type=ANIMAL&record_id=${records.ANIMAL}`, { token: feedlot.owner.access });
    expect({ status: unseen.status, error: unseen.body.error, detail: unseen.body.detail }).toEqual({ status: 404, error: 'NOT_FOUND', detail: 'animal not found' });
  });

  test('the type is what the bytes are: a PNG named .pdf (claimed application/pdf) is kept as image/png named .png; an executable named .jpg (claimed image/jpeg) is a 422 naming file, leaving no row and no file', async () => {
    const { owner, unit } = await holding(app, county);
    const before = stored().length;
    const spoofed = await upload(app, { token: owner.access, fields: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId }, file: { bytes: PNG, name: 'relatorio.pdf', type: 'application/pdf' } });
    expectStatus(spoofed, 201);
    expect(spoofed.body.data).toMatchObject({ str_content_type: 'image/png', str_file_name: 'relatorio.png' });
    const got = await download(app, spoofed.body.data.str_content_path, owner.access);
    expect(got.headers.get('content-type')).toBe('image/png');

    const exe = await upload(app, { token: owner.access, fields: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId }, file: { bytes: ELF, name: 'foto.jpg', type: 'image/jpeg' } });
    expect({ status: exe.status, error: exe.body.error }).toEqual({ status: 422, error: 'VALIDATION_FAILED' });
    expect(exe.body.detail.fields.file[0]).toMatch(/must be a PDF, JPEG, PNG or WebP file.*application\/x-elf/);
    const text = await upload(app, { token: owner.access, fields: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId }, file: { bytes: Buffer.from('just some text'), name: 'nota.pdf', type: 'application/pdf' } });
    expect(text.status).toBe(422);
    expect(text.body.detail.fields.file[0]).toMatch(/of no type it accepts/);
    expect(await rowsOf(unit.establishmentId)).toBe(1);
    expect(stored().length).toBe(before + 1);
    expect(incoming()).toEqual([]);
  });

  test('10 MiB + 1 byte and 11 MiB through Node\'s fetch, 10 times: always the 413 in the contract shape, never a reset (the rest of the body is read before the connection closes)', async () => {
    const { owner, unit } = await holding(app, county);
    const fields = { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId };
    const answers: unknown[] = [];
    for (let i = 0; i < 10; i++) {
      // Half just over the limit (stopped at its first byte past it), half a MiB over (refused by its declared length, unread).
      const bytes = Buffer.concat([PNG, Buffer.alloc(MAX + (i % 2 ? 1 : 1 << 20) - PNG.length, 0)]);
      try {
        const res = await upload(app, { token: owner.access, fields, file: { bytes, name: 'grande-demais.png' } });
        answers.push({ status: res.status, body: res.body });
      } catch (err) {
        answers.push(String((err as Error).cause ?? err));
      }
    }
    expect(answers).toEqual(Array(10).fill({ status: 413, body: { error: 'PAYLOAD_TOO_LARGE', detail: 'an attachment is at most 10485760 bytes (10 MiB)' } }));
    expect(await rowsOf(unit.establishmentId)).toBe(0);
    // 200 MiB through one loaded machine's loopback: more than a test's usual minute.
  }, 240_000);

  test('10 MiB is taken; 10 MiB + 1 byte is a 413 in the contract shape leaving no row and no file; a declared length past the limit is refused unread', async () => {
    const { owner, unit } = await holding(app, county);
    const fields = { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId };
    const exactly = Buffer.concat([PNG, Buffer.alloc(MAX - PNG.length, 0)]);
    const ok = await upload(app, { token: owner.access, fields, file: { bytes: exactly, name: 'grande.png' } });
    expectStatus(ok, 201);
    expect(ok.body.data.int_size_bytes).toBe(MAX);
    const before = stored().length;
    const over = await upload(app, { token: owner.access, fields, file: { bytes: Buffer.concat([exactly, Buffer.from([0])]), name: 'grande-demais.png' } });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: 'PAYLOAD_TOO_LARGE', detail: 'an attachment is at most 10485760 bytes (10 MiB)' });
    // Only the first bytes of a body declared twice the limit are sent: the answer comes without waiting for the rest.
    const declared = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = request(`${app.url}/api/attachments`, { method: 'POST', headers: { authorization: `Bearer ${owner.access}`, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(MAX * 2) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      });
      req.on('error', reject);
      req.write('--x\r\n');
    });
    expect(declared).toEqual({ status: 413, body: { error: 'PAYLOAD_TOO_LARGE', detail: 'an attachment is at most 10485760 bytes (10 MiB)' } });
    expect(await rowsOf(unit.establishmentId)).toBe(1);
    expect(stored().length).toBe(before);
    expect(incoming()).toEqual([]);
    // The service still answers.
    expectStatus(await app.call('GET', `/api/attachments/${ok.body.data.id}`, { token: owner.access }), 200);
  });

  test('another tenant gets 404 for every attachment path of a record it does not see; a viewer sees but may not attach (403); only the author deletes (403 for a co-owner), then row, bytes and listing are gone with one ATTACHMENT_DELETED', async () => {
    const farm = await holding(app, county);
    const fields = { str_record_type: 'ESTABLISHMENT', record_id: farm.unit.establishmentId };
    const a = (await upload(app, { token: farm.owner.access, fields, file: { bytes: PDF, name: 'car.pdf' } })).body.data;
    const stranger = await member(app);
    const notFound = { status: 404, error: 'NOT_FOUND' };
    const shape = (r: { status: number; body: { error?: string } }) => ({ status: r.status, error: r.body?.error });
    expect(shape(await app.call('GET', `/api/attachments/${a.id}`, { token: stranger.access }))).toEqual(notFound);
    expect(shape(await app.call('GET', `/api/attachments/${a.id}/content`, { token: stranger.access }))).toEqual(notFound);
    expect(shape(await app.call('GET', `/api/attachments?str_record_type=ESTABLISHMENT&record_id=${farm.unit.establishmentId}`, { token: stranger.access }))).toEqual(notFound);
    expect(shape(await app.call('DELETE', `/api/attachments/${a.id}`, { token: stranger.access }))).toEqual(notFound);
    expect(shape(await upload(app, { token: stranger.access, fields, file: { bytes: PDF, name: 'x.pdf' } }))).toEqual(notFound);
    const mine = await app.call('GET', '/api/attachments', { token: stranger.access });
    expect(mine.body.data.map((x: { id: string }) => x.id)).not.toContain(a.id);
    const gql = await app.graphql(`query($id: UUID!) { attachment(id: $id) { id } }`, { id: a.id }, stranger.access);
    expect(gql.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const viewer = await member(app, 'VIEWER', farm.owner.org);
    expectStatus(await app.call('GET', `/api/attachments/${a.id}`, { token: viewer.access }), 200);
    expect(shape(await upload(app, { token: viewer.access, fields, file: { bytes: PDF, name: 'x.pdf' } }))).toEqual({ status: 403, error: 'FORBIDDEN' });
    const coOwner = await member(app, 'OWNER', farm.owner.org);
    const refused = await app.call('DELETE', `/api/attachments/${a.id}`, { token: coOwner.access });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: { error: 'FORBIDDEN', detail: 'only its author deletes an attachment' } });
    expect(await rowsOf(farm.unit.establishmentId)).toBe(1);

    const file = stored().find((f) => f.endsWith(a.id));
    expect(file).toBeDefined();
    const gone = await app.call('DELETE', `/api/attachments/${a.id}`, { token: farm.owner.access });
    expect(gone.status).toBe(204);
    expect(await rowsOf(farm.unit.establishmentId)).toBe(0);
    expect(stored().find((f) => f.endsWith(a.id))).toBeUndefined();
    expect((await eventsOf(app, 'Attachment', a.id)).map((e) => e.str_type)).toEqual(['ATTACHMENT_ADDED', 'ATTACHMENT_DELETED']);
    expect(shape(await app.call('GET', `/api/attachments/${a.id}/content`, { token: farm.owner.access }))).toEqual(notFound);
    expect(shape(await app.call('DELETE', `/api/attachments/${a.id}`, { token: farm.owner.access }))).toEqual(notFound);
  });

  test('an authority of the UF sees a GTA and attaches to it; one of another UF gets 404', async () => {
    const farm = await holding(app, county);
    const feedlot = await holding(app, county);
    const gta = await issueGta(app, farm.owner.access, farm.unit, feedlot.unit, 1);
    const authority = await official(app, county.id);
    const res = await upload(app, { token: authority.access, fields: { str_record_type: 'GTA', record_id: gta.id }, file: { bytes: PDF, name: 'gta.pdf' } });
    expectStatus(res, 201);
    const elsewhere = await official(app, (await makeCounty(app, county.str_federative_unit === 'SP' ? 'MG' : 'SP')).id);
    expect((await app.call('GET', `/api/attachments/${res.body.data.id}`, { token: elsewhere.access })).status).toBe(404);
  });

  test('bad uploads: no token 401, JSON 400, no file or fields 422 naming them, an unknown record type or a malformed id 422, a record that does not exist 404; GraphQL has no file to take', async () => {
    const { owner, unit } = await holding(app, county);
    expect((await upload(app, { fields: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId }, file: { bytes: PDF, name: 'a.pdf' } })).status).toBe(401);
    const json = await app.call('POST', '/api/attachments', { token: owner.access, body: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId } });
    expect({ status: json.status, error: json.body.error }).toEqual({ status: 400, error: 'BAD_REQUEST' });
    const empty = await upload(app, { token: owner.access, fields: {} });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.detail.fields).sort()).toEqual(['file', 'record_id', 'str_record_type']);
    const bad = await upload(app, { token: owner.access, fields: { str_record_type: 'TRAVEL', record_id: 'nope' }, file: { bytes: PDF, name: 'a.pdf' } });
    expect(Object.keys(bad.body.detail.fields).sort()).toEqual(['record_id', 'str_record_type']);
    const missing = await upload(app, { token: owner.access, fields: { str_record_type: 'GTA', record_id: randomUUID() }, file: { bytes: PDF, name: 'a.pdf' } });
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 404, body: { error: 'NOT_FOUND', detail: 'gta not found' } });
    const nameless = await app.call('GET', `/api/attachments?record_id=${unit.establishmentId}`, { token: owner.access });
    expect(nameless.body.detail.fields.str_record_type).toBeDefined();
    const gql = await app.graphql(`mutation($i: AttachmentCreateInput!) { createAttachment(input: $i) { id } }`, { i: { str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId } }, owner.access);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', detail: { fields: { file: [expect.stringMatching(/multipart/)] } } });
    expect(incoming()).toEqual([]);
  });

  test('a client id makes a retried upload answer the same attachment; the same id with other bytes is a CONFLICT', async () => {
    const { owner, unit } = await holding(app, county);
    const id = randomUUID();
    const fields = { id, str_record_type: 'ESTABLISHMENT', record_id: unit.establishmentId };
    const first = await upload(app, { token: owner.access, fields, file: { bytes: PDF, name: 'car.pdf' } });
    expectStatus(first, 201);
    expect(first.body.data.id).toBe(id);
    const again = await upload(app, { token: owner.access, fields, file: { bytes: PDF, name: 'car.pdf' } });
    expect(again.body.data).toEqual(first.body.data);
    const other = await upload(app, { token: owner.access, fields, file: { bytes: PNG, name: 'car.png' } });
    expect({ status: other.status, error: other.body.error }).toEqual({ status: 422, error: 'CONFLICT' });
    expect(await rowsOf(unit.establishmentId)).toBe(1);
    expect((await rows(app, 'select id from event where str_record_type = ? and record_id = ?', ['Attachment', id])).length).toBe(1);
    expect(incoming()).toEqual([]);
  });
});
