// The plain JSON path (lib/json/plain-json.ts) against parseJson without it: on the reference's
// answers, every JSON fixture, generated texts and seeded mutations of all of them, parseJson gives
// exactly what the measured JSON.parse path gives (the same value, key order, -0, lexemes, repeated
// keys, errors and limit messages), and the plain path hands back what it must not read.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../lib/body-limits.js';
import { parseJson, parseJsonSlowly, type JsonParseResult } from '../lib/json/parse.js';
import { NOT_PLAIN, plainJson } from '../lib/json/plain-json.js';
import type { JsonValue } from '../lib/json/value.js';
import { fromRoot } from '../lib/paths.js';
import { startReference } from '../lib/reference/server.js';
import { sameJson } from './helpers/same-json.js';

function sameResult(a: JsonParseResult, b: JsonParseResult): boolean {
  if (!a.ok || !b.ok) return !a.ok && !b.ok && a.error === b.error;
  return sameJson(a.json.value, b.json.value) && JSON.stringify([...a.json.numbers]) === JSON.stringify([...b.json.numbers])
    && JSON.stringify(a.json.duplicateKeys) === JSON.stringify(b.json.duplicateKeys);
}

/** parseJson and its yardstick agree on `text`; and the plain path, when it reads it, gives JSON.parse's value. */
function agree(text: string): void {
  const [fast, slow] = [parseJson(text), parseJsonSlowly(text)];
  expect(sameResult(fast, slow), `${JSON.stringify(text.slice(0, 200))}: ${JSON.stringify(fast).slice(0, 300)} against ${JSON.stringify(slow).slice(0, 300)}`).toBe(true);
  const plain = plainJson(text);
  if (plain !== NOT_PLAIN) expect(sameJson(plain, JSON.parse(text) as JsonValue)).toBe(true);
}

function* jsonFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* jsonFiles(path);
    else if (name.endsWith('.json')) yield path;
  }
}

/** A text with one seeded edit: a character replaced, dropped or inserted. */
const mutation = (texts: readonly string[]) => fc.tuple(fc.constantFrom(...texts), fc.nat(), fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', '.', 'e', '0', '9', '-', ' ', '\n', 'u', '\u0001', '\ud800', 'x', ''), fc.constantFrom(0, 1))
  .map(([t, at, s, drop]) => { const i = at % (t.length + 1); return t.slice(0, i) + s + t.slice(i + drop); });

describe('parseJson with the plain path', () => {
  let answers: string[] = [];
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const ref = await startReference({ port: 0 });
    close = () => ref.close();
    const calls: [string, object][] = [];
    for (let i = 0; i < 60; i++) calls.push(['/supportstateuser', { userName: `user${i}`, searchValues: `s${i}` }]);
    for (let i = 0; i < 20; i++) calls.push(['/user/confirmemail', { recoveryToken: `rt${i}`, ownerId: i }]);
    calls.push(['/supportstateuser', { userName: 'sample-userName', searchValues: 'sample-searchValues' }]);
    answers = await Promise.all(calls.map(async ([path, body]) => (await fetch(`${ref.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text()));
  }, 60_000);
  afterAll(async () => { await close?.(); });

  it('reads the reference\'s answers on the plain path, exactly as JSON.parse', () => {
    expect(answers.length).toBe(81);
    for (const a of answers) {
      expect(plainJson(a)).not.toBe(NOT_PLAIN);
      agree(a);
    }
  });

  it('agrees on every JSON fixture', () => {
    let n = 0;
    for (const file of jsonFiles(fromRoot('fixtures'))) { agree(readFileSync(file, 'utf8')); n++; }
    expect(n).toBeGreaterThan(100);
  });

  it('agrees on seeded one-character mutations of the answers', () => {
    fc.assert(fc.property(mutation(answers), (t) => { agree(t); }), { seed: 24, numRuns: 3000 });
  });

  it('agrees on generated JSON, compact and indented, and on its mutations', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.boolean(), (v, indent) => { agree(JSON.stringify(v, null, indent ? 2 : undefined)); }), { seed: 3, numRuns: 2000 });
    fc.assert(fc.property(fc.array(fc.json(), { minLength: 1, maxLength: 5 }).chain((texts) => mutation(texts)), (t) => { agree(t); }), { seed: 5, numRuns: 2000 });
  });

  it('hands back what only the full path may read, which then answers as before', () => {
    const handedBack = [
      '{"a":1.0}', '{"a":1e3}', '{"a":9007199254740993}', '{"a":1234567890123456}', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '{"toString":1}',
      '{"a":"x\u0001"}', '\ufeff{}', '', ' ', '{"a":01}', '{"a":-}', '[1,]', '{"a":1,}', '{"a":"\\x"}', '{"a":"\\u12G4"}', '"\\u12', 'nul', 'tru', '{"a" 1}',
      `${'['.repeat(BODY_LIMITS.depth + 1)}${']'.repeat(BODY_LIMITS.depth + 1)}`, `{"${'n'.repeat(BODY_LIMITS.nameLength + 1)}":1}`,
      `[${'0,'.repeat(BODY_LIMITS.children)}0]`, '[-123456789012345]',
    ];
    for (const t of handedBack) {
      expect(plainJson(t), JSON.stringify(t.slice(0, 40))).toBe(NOT_PLAIN);
      agree(t);
    }
  });

  it('takes a name remembered from an earlier object only where the text spells exactly it', () => {
    const texts = ['{"a":1,"bc":2}', '{"a":1,"b":2}', '{"a":1,"bcd":2}', '{"a":1,"b\\u0063":2}', '{"a":1,"bc":2}', '{"a":1,"bc" :2}', '{"a":1,"bc\\"":2}', '{"x":{"a":1,"bc":{"a":1,"bc":3}}}'];
    for (const t of texts) agree(t);
    expect(Object.keys(plainJson('{"a":1,"bc":2}') as object)).toEqual(['a', 'bc']);
    expect(Object.keys(plainJson('{"a":1,"b":2}') as object)).toEqual(['a', 'b']);
    expect(Object.keys(plainJson('{"a":1,"bcd":2}') as object)).toEqual(['a', 'bcd']);
    expect(Object.keys(plainJson('{"a":1,"b\\u0063":2}') as object)).toEqual(['a', 'bc']);
  });

  it('reads what JSON.parse reads: escapes, lone surrogates, -0, scalars, empty containers, integer keys in their order', () => {
    const read = ['{"a":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\udc00"}', '"\ud800 lone"', '-0', '0', ' 7 ', 'true', 'false', 'null', '{}', '[]', '[{},[],""]',
      '{"2":1,"b":2,"1":3}', `{"long":"${'x'.repeat(40)}","k":"${'y'.repeat(13)}\\n"}`, '[123456789012345,-12345678901234]',
      `${'['.repeat(BODY_LIMITS.depth)}${']'.repeat(BODY_LIMITS.depth)}`];
    for (const t of read) {
      expect(plainJson(t), t).not.toBe(NOT_PLAIN);
      agree(t);
    }
    expect(Object.is(plainJson('-0'), -0)).toBe(true);
    expect(Object.keys(plainJson('{"2":1,"b":2,"1":3}') as object)).toEqual(['1', '2', 'b']);
  });
});
