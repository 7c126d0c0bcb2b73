import { Readable } from 'node:stream';
import { csvInParts } from '../src/db/copy.js';

/** The parts of an export read two at a time, sent in order (src/db/copy.ts `csvInParts`), over streams of known bytes. */
const read = async (stream: Readable): Promise<string> => {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
};

/** A part whose bytes come one chunk per tick; `opened` records when each part was asked for. */
function parts(texts: string[][], opened: number[], fail?: { part: number; after: number }) {
  return texts.map((chunks, i) => () => {
    opened.push(i);
    let n = 0;
    return new Readable({
      read() {
        setImmediate(() => {
          if (fail?.part === i && n === fail.after) this.destroy(new Error(`part ${i} failed`));
          else this.push(n < chunks.length ? chunks[n++] : null);
        });
      },
    });
  });
}

describe('an export read in parts', () => {
  test('sends every part whole and in order, never more than `parallel` open ahead of the one sent', async () => {
    const texts = Array.from({ length: 7 }, (_, i) => Array.from({ length: 5 }, (_, k) => `p${i}c${k};`));
    const opened: number[] = [];
    const out = csvInParts(parts(texts, opened), 2, 1024);
    expect(await read(out)).toBe(texts.flat().join(''));
    expect(opened).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test('opens the second part at once, and the rest only as the ones before end', async () => {
    const opened: number[] = [];
    const texts = Array.from({ length: 5 }, (_, i) => Array.from({ length: 50 }, () => `${i}`));
    const out = csvInParts(parts(texts, opened), 2, 16);
    const seen: number[][] = [];
    let text = '';
    for await (const chunk of out) {
      text += String(chunk);
      seen.push([...opened]);
    }
    expect(text).toBe(texts.flat().join(''));
    // The first chunk leaves with two parts open, not five: the rest wait for their turn.
    expect(seen[0]!.length).toBeLessThanOrEqual(3);
    expect(seen[0]).toEqual(expect.arrayContaining([0, 1]));
  });

  test('a later part that fails ends the export before the first part is sent whole', async () => {
    const texts = [Array.from({ length: 200 }, () => 'a'), ['b', 'b']];
    const out = csvInParts(parts(texts, [], { part: 1, after: 1 }), 2, 1024);
    let got = '';
    await expect(
      (async () => {
        for await (const chunk of out) got += String(chunk);
      })(),
    ).rejects.toThrow('part 1 failed');
    expect(got.length).toBeLessThan(200);
  });

  test('a client that leaves ends every open part', async () => {
    const streams: Readable[] = [];
    const texts = [Array.from({ length: 1000 }, () => 'a'), Array.from({ length: 1000 }, () => 'b')];
    const made = parts(texts, []).map((open) => () => {
      const s = open();
      streams.push(s);
      return s;
    });
    const out = csvInParts(made, 2, 64);
    await new Promise((r) => out.once('data', r));
    out.destroy();
    await new Promise((r) => setImmediate(r));
    expect(streams).toHaveLength(2);
    expect(streams.every((s) => s.destroyed)).toBe(true);
  });

  test('one part is that part itself', () => {
    const only = Readable.from(['x']);
    expect(csvInParts([() => only], 2, 16)).toBe(only);
  });
});
