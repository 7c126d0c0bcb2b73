import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { escapeLiteral } from '../src/db/orm.js';

// src/db/orm.ts replaces MikroORM's character-by-character escape with a two-pass one: it must give the same text for every string.
test("the fast literal escape is MikroORM's own, text for text", () => {
  const original = new PostgreSqlPlatform();
  const samples = ['', 'plain', "O'Brien", "''", '\\', 'a\\b', "it's a \\ and a '", 'São Paulo — ção', '{"a":"b\\"c"}', "\\'", 'x'.repeat(10_000) + "'\\"];
  for (let i = 0; i < 200; i++) samples.push(Array.from({ length: 20 }, () => String.fromCharCode(32 + Math.floor(Math.random() * 95))).join(''));
  for (const s of samples) expect(escapeLiteral(s)).toBe(original['escapeLiteral'](s));
});
