// A seeded differential fuzz of the JSON answer read from its bytes (parseJsonBytes, and
// ExchangeView.json() trying it first) against what ExchangeView.json() did before: a fatal UTF-8
// decode (a leading byte-order mark dropped), then parseJson and its yardstick parseJsonSlowly. On
// random JSON-ish bytes, valid and broken (invalid or overlong UTF-8, encoded surrogates, truncated
// sequences, a BOM, control bytes, escapes, non-ASCII and array-index names, "a" beside "\u0061",
// __proto__, large objects, deep nesting), both give the same value (own names in order by
// Object.keys and Object.getOwnPropertyNames, prototypes, descriptors), the same listed names, the
// same numbers and repeated keys, and the same skip text.
import { describe, expect, it } from 'vitest';
import { BODY_LIMITS } from '../lib/body-limits.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { recordedResponse } from '../lib/http/exchange.js';
import { parseJson, parseJsonBytes, parseJsonSlowly, type ParsedJson } from '../lib/json/parse.js';
import { plainJsonStacks } from '../lib/json/plain-json.js';
import type { JsonObject, JsonValue } from '../lib/json/value.js';

/** mulberry32: a small seeded generator, so every run builds the same cases. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What ExchangeView.json() gave before the bytes were tried: its skip text, or the parsed JSON. */
function before(bytes: Buffer): { ok: true; json: ParsedJson } | { ok: false; error: string } {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { ok: false, error: 'the body is not valid UTF-8' };
  }
  const parsed = parseJson(text);
  const slow = parseJsonSlowly(text);
  // The old path's own contract: the plain text path gives what the measured JSON.parse gives.
  expect(describeResult(parsed.ok ? { ok: true, json: { ...parsed.json, listed: undefined } } : parsed)).toBe(describeResult(slow));
  return parsed.ok ? parsed : { ok: false, error: `the body is ${parsed.error}` };
}

/** A full description of a value: every object's prototype, own names (Object.keys and
 *  getOwnPropertyNames, in order), and each property's descriptor flags; numbers by Object.is (-0). */
function describeValue(v: JsonValue): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'number' && Object.is(v, -0) ? '-0' : [typeof v, v];
  if (Array.isArray(v)) return ['array', Object.getPrototypeOf(v) === Array.prototype, v.map(describeValue)];
  const o = v as JsonObject;
  const proto = Object.getPrototypeOf(o) === Object.prototype ? 'Object.prototype' : String(Object.getPrototypeOf(o));
  const own = Object.getOwnPropertyNames(o);
  return ['object', proto, Object.keys(o), own, Object.getOwnPropertySymbols(o).length, Object.isExtensible(o),
    own.map((k) => { const d = Object.getOwnPropertyDescriptor(o, k)!; return [k, d.writable, d.enumerable, d.configurable, 'value' in d, describeValue(d.value as JsonValue)]; })];
}

/** Every object of `v` in document order. */
function objectsOf(v: JsonValue, out: JsonObject[] = []): JsonObject[] {
  if (v === null || typeof v !== 'object') return out;
  if (Array.isArray(v)) { for (const x of v) objectsOf(x, out); return out; }
  out.push(v);
  for (const k of Object.getOwnPropertyNames(v)) objectsOf(v[k]!, out);
  return out;
}

function describeResult(r: { ok: true; json: ParsedJson } | { ok: false; error: string }): string {
  if (!r.ok) return JSON.stringify(['error', r.error]);
  const listed = objectsOf(r.json.value).map((o) => r.json.listed?.get(o) ?? null);
  return JSON.stringify([describeValue(r.json.value), [...r.json.numbers], r.json.duplicateKeys, listed]);
}

const viewOf = (body: Buffer): ExchangeView => new ExchangeView({
  id: 'fuzz', title: 'fuzz', origin: { source: 'probe', vouched: true }, request: { method: 'POST', url: 'http://svc.test/user/confirmemail', headers: {} },
  response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, body), startedAt: '2026-01-01T00:00:00.000Z', durationMs: 0,
}, { namespaces: DEFAULT_NAMESPACES });

// Pieces of JSON-ish bytes. Names: ASCII (few, so they become known names), non-ASCII, escaped
// spellings of ASCII names, array indexes and near-indexes, names Object.prototype answers.
const NAMES = ['a', 'b', 'ab', 'abc', 'abcd', 'abcde', 'abcdf', 'xbcde', 'lastXName', 'Ã©', 'Ã¼', 'userName', 'email', 'firstName', 'x1', 'é', 'ée', 'a\u00e9', '名前', '😀', 'Zoë',
  '0', '1', '42', '4294967294', '4294967295', '01', '-1', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', ' ', 'a b', 'ÿ', '\u0080', '\u07ff', '\uffff'];
const RAW_NAME_SPELLINGS: readonly (readonly [string, string])[] = [['a', '\\u0061'], ['ab', 'a\\u0062'], ['é', '\\u00e9'], ['é', '\\u00E9'], ['userName', 'user\\u004eame'], ['0', '\\u0030'], ['__proto__', '\\u005f_proto__']];
const BAD_BYTES: readonly number[][] = [
  [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xf0, 0x80, 0x80, 0xaf], // overlong
  [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], // surrogates encoded as UTF-8
  [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xc3], // truncated
  [0x80], [0xbf], [0xff], [0xfe], [0xf5, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], // stray, out of range
];
const STRING_PIECES = ['x', 'hello world', 'é', 'ü', '東京都', '😀', 'Ω', '\u00a0', '\u2028', '\ufeff', '\uffff', 'ÿ', '\u0080', '\u007f',
  '\\n', '\\"', '\\\\', '\\/', '\\u0000', '\\u001f', '\\u0041', '\\u00e9', '\\ud83d\\ude00', '\\ud800', '\\udc00', '\\uDBFF\\uDFFF', '\\uFEFF', '\\t', '\\b\\f\\r',
  'a long enough ascii run of text', '0123456789abcdef'];
const EDIT_BYTES = [0x22, 0x5c, 0x2c, 0x3a, 0x7b, 0x7d, 0x5b, 0x5d, 0x20, 0x0a, 0x00, 0x01, 0x1f, 0x7f, 0x80, 0xbf, 0xc3, 0xe9, 0xed, 0xef, 0xf0, 0xff, 0x30, 0x2d, 0x2e, 0x65, 0x75, 0x74, 0x6e];

function fuzzCase(rnd: () => number): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const chance = (p: number): boolean => rnd() < p;
  // About a third of the cases carry breakage in their pieces (bad UTF-8, raw control bytes).
  const broken = chance(0.35);
  const parts: Buffer[] = [];
  const put = (s: string | number[]): void => { parts.push(typeof s === 'string' ? Buffer.from(s, 'utf8') : Buffer.from(s)); };
  const blank = (): void => { if (chance(0.15)) put(chance(0.03) ? '\u00a0' : pick([' ', '\n', '\t', '\r\n  '])); };
  const str = (): void => {
    put('"');
    const n = Math.floor(rnd() * 4);
    for (let k = 0; k < n; k++) {
      if (broken && chance(0.03)) put(pick(BAD_BYTES));
      else if (broken && chance(0.02)) put([pick([0x00, 0x01, 0x09, 0x0a, 0x1f])]); // raw control byte: not JSON
      else put(pick(STRING_PIECES));
    }
    put('"');
  };
  const name = (used: string[]): void => {
    // A repeat of a name of this object now and then (spelled the same, or escaped).
    const repeat = used.length > 0 && chance(0.08);
    const nm = repeat ? pick(used) : chance(0.2) ? `n${Math.floor(rnd() * 40)}` : chance(0.03) ? `long${'é'.repeat(300 + Math.floor(rnd() * 400))}` : pick(NAMES);
    used.push(nm);
    const escaped = RAW_NAME_SPELLINGS.filter(([plain]) => plain === nm);
    if (escaped.length > 0 && chance(0.3)) put(`"${pick(escaped)[1]}"`);
    else if (chance(0.02)) put(`"${nm}${String.fromCharCode(0x01)}"`);
    else put(JSON.stringify(nm).replace(/[\u007f-\uffff]/g, (c) => c)); // raw UTF-8, not escaped
  };
  const value = (depth: number): void => {
    blank();
    const r = rnd();
    if (depth > 3 ? r < 0.7 : r < 0.35) {
      const kind = rnd();
      if (kind < 0.45) str();
      else if (kind < 0.75) put(chance(0.05) ? pick(['01', '1.', '.5', '+1', '--1']) : pick(['0', '-0', '1', '-1', '42', '123456789012345', '1234567890123456', '9007199254740993', '1.5', '1e3', '-0.0', '2E-2', '1e400']));
      else put(chance(0.05) ? pick(['tru', 'nul', 'NaN', 'falsey']) : pick(['true', 'false', 'null']));
    } else if (r < 0.6) {
      put('{');
      const n = chance(0.12) ? 17 + Math.floor(rnd() * 8) : Math.floor(rnd() * 5);
      const used: string[] = [];
      for (let k = 0; k < n; k++) {
        if (k > 0) put(',');
        blank(); name(used); blank(); put(':'); value(depth + 1);
      }
      blank();
      put('}');
    } else {
      put('[');
      const n = Math.floor(rnd() * 4);
      for (let k = 0; k < n; k++) { if (k > 0) put(','); value(depth + 1); }
      put(']');
    }
    blank();
  };
  if (chance(0.05)) put([0xef, 0xbb, 0xbf]); // a byte-order mark
  if (chance(0.02)) {
    // Deep nesting, at and past the depth limit.
    const d = BODY_LIMITS.depth - 1 + Math.floor(rnd() * 3);
    put(`${'['.repeat(d)}${'{"a":1}'}${']'.repeat(d)}`);
  } else value(0);
  let b = Buffer.concat(parts);
  // A byte-level edit now and then: one replaced, dropped or inserted.
  if (chance(0.2)) {
    const at = Math.floor(rnd() * (b.length + 1));
    const drop = chance(0.5) ? 1 : 0;
    const byte = chance(0.2) ? [] : [pick(EDIT_BYTES)];
    b = Buffer.concat([b.subarray(0, at), Buffer.from(byte), b.subarray(at + drop)]);
  }
  if (chance(0.02)) b = Buffer.concat([Buffer.from(' '), Buffer.from([0xef, 0xbb, 0xbf]), b]); // a BOM not at the start
  return b;
}

describe('JSON answers read from their bytes, fuzzed against the decode-then-parse path', () => {
  it('gives the same value, key order, prototypes, listed names, numbers, repeated keys and skip text on 4000 seeded bodies', () => {
    const rnd = seeded(20261126);
    const counts = { read: 0, fellBack: 0, refused: 0, wide: 0 };
    let queued: Buffer | undefined;
    for (let n = 0; n < 4000; n++) {
      let bytes = queued ?? fuzzCase(rnd);
      queued = undefined;
      // Now and then a case's mojibake first (its bytes' Latin-1 view, encoded as UTF-8: "é" becomes
      // "Ã©"), so that names the text path learns from it are there when the bytes are read.
      if (rnd() < 0.1) { queued = bytes; bytes = Buffer.from(bytes.toString('latin1'), 'utf8'); }
      const show = bytes.toString('hex').slice(0, 400);
      // The order of the two paths alternates: the plain path's table of known names is run-wide.
      const direct = n % 2 === 0 ? parseJsonBytes(bytes) : undefined;
      const old = before(bytes);
      const viaBytes = n % 2 === 1 ? parseJsonBytes(bytes) : direct;
      expect(plainJsonStacks().holding, show).toBe(0);
      const view = viewOf(bytes);
      const now = view.json();
      const nowResult = now.ok ? { ok: true as const, json: now.value } : { ok: false as const, error: now.reason };
      expect(describeResult(nowResult), show).toBe(describeResult(old));
      if (viaBytes !== undefined) {
        expect(describeResult({ ok: true, json: viaBytes }), show).toBe(describeResult(old));
        // keysOf of every object lists its names as Object.keys does.
        for (const o of objectsOf(viaBytes.value)) expect(viaBytes.listed?.get(o) ?? Object.keys(o)).toEqual(Object.keys(o));
        counts.read++;
        if (bytes.some((c) => c >= 0x80)) counts.wide++;
      } else if (old.ok) counts.fellBack++;
      else counts.refused++;
      if (now.ok) for (const o of objectsOf(now.value.value)) expect(view.keysOf(o), show).toEqual(Object.keys(o));
    }
    // The cases reach every outcome: read from the bytes (with non-ASCII among them), read as text
    // after the bytes were handed back, and refused.
    expect(counts.read, JSON.stringify(counts)).toBeGreaterThan(1200);
    expect(counts.wide, JSON.stringify(counts)).toBeGreaterThan(250);
    expect(counts.fellBack, JSON.stringify(counts)).toBeGreaterThan(400);
    expect(counts.refused, JSON.stringify(counts)).toBeGreaterThan(800);
  });
});
