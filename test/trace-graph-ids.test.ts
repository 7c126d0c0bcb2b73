import { randomUUID } from 'node:crypto';
import { Interner } from '../src/trace/graph/trace-graph.ids.js';
import { UuidTable } from '../src/trace/graph/uuid-table.js';

/** The trace graph's id table (src/trace/graph/trace-graph.ids.ts): one string per uuid, whether met as text or as the binary COPY's 16 bytes. */
const bytesOf = (uuid: string) => Buffer.from(uuid.replaceAll('-', ''), 'hex');

test('a uuid met as text or as bytes is one string, equal to its text, across the table growing', () => {
  const ids = new Interner();
  const uuids = Array.from({ length: 20_000 }, () => randomUUID());
  // Edges of the words' signs and of the nil uuid.
  uuids.push('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '80000000-8000-8000-8000-800000000000', '7fffffff-7fff-7fff-7fff-7fffffffffff');
  const fromBytes = uuids.map((u) => ids.ofBytes(bytesOf(u), 0));
  expect(fromBytes).toEqual(uuids);
  const fromText = uuids.map((u) => ids.of(`${u}`));
  for (let i = 0; i < uuids.length; i++) expect(Object.is(fromText[i], fromBytes[i])).toBe(true);
  // At an offset inside a larger buffer.
  const wide = Buffer.concat([Buffer.from([1, 2, 3]), bytesOf(uuids[7]!)]);
  expect(ids.ofBytes(wide, 3)).toBe(uuids[7]);
  // A fresh table met by text first hands the same string back for the bytes.
  const other = new Interner();
  const kept = other.of(uuids[0]!);
  expect(other.ofBytes(bytesOf(uuids[0]!), 0)).toBe(kept);
});

test('the graph\'s uuid table interns a uuid met as bytes (no string made) and as text to one index, and names it back', () => {
  const table = new UuidTable();
  const uuids = Array.from({ length: 20_000 }, () => randomUUID());
  uuids.push('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '80000000-8000-8000-8000-800000000000', '7fffffff-7fff-7fff-7fff-7fffffffffff');
  const wide = Buffer.concat(uuids.map(bytesOf));
  const byBytes = uuids.map((_, i) => table.internBytes(wide, 16 * i));
  expect(byBytes).toEqual(uuids.map((_, i) => i));
  expect(uuids.map((u) => table.intern(u))).toEqual(byBytes);
  expect(uuids.map((_, i) => table.name(i))).toEqual(uuids);
  // Again as bytes: the same indexes, nothing added.
  expect(uuids.map((_, i) => table.internBytes(wide, 16 * i))).toEqual(byBytes);
  expect(table.size).toBe(uuids.length);
  // A name that is not a uuid keeps its own index, apart from the nil uuid's words.
  const other = table.intern('not-a-uuid');
  expect(other).toBe(uuids.length);
  expect(table.internBytes(bytesOf('00000000-0000-0000-0000-000000000000'), 0)).toBe(byBytes[20_000]);
});
