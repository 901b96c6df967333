// The plain JSON path reading an answer's bytes undecoded (plainJsonBytes, through their Latin-1
// view): it gives exactly what parseJson gives for the text a fatal UTF-8 decoder makes of them, hands
// back bytes that are no UTF-8 or begin with a byte-order mark, never takes a name it knew for another
// name's Latin-1 view, and compares known names four bytes at a time without misreading a byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import type { Exchange } from '../lib/http/exchange.js';
import { parseJson, parseJsonBytes } from '../lib/json/parse.js';
import { NOT_PLAIN, plainJsonBytes, plainJsonListed } from '../lib/json/plain-json.js';
import type { JsonValue } from '../lib/json/value.js';
import { sameJson } from './helpers/same-json.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** plainJsonBytes of `bytes` is NOT_PLAIN when they are no UTF-8; else parseJsonBytes, when it reads
 *  them, gives parseJson's value of their decoded text (and plainJsonListed's names listed). Whether
 *  it read them. */
function agreeBytes(bytes: Buffer): boolean {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    expect(plainJsonBytes(bytes)).toBe(NOT_PLAIN);
    return false;
  }
  const read = parseJsonBytes(bytes);
  const slow = parseJson(text);
  if (read === undefined) return false;
  expect(slow.ok, JSON.stringify(text.slice(0, 200))).toBe(true);
  if (!slow.ok) return false;
  expect(sameJson(read.value, slow.json.value), `${JSON.stringify(text.slice(0, 200))}: ${JSON.stringify(read.value).slice(0, 300)}`).toBe(true);
  expect(sameJson(read.value, JSON.parse(text) as JsonValue)).toBe(true);
  expect([...(read.listed ?? [])].map(([, names]) => names)).toEqual([...(slow.json.listed ?? [])].map(([, names]) => names));
  return true;
}

/** A login-like record of many members, with non-ASCII values, escapes beside them, and nested objects. */
const record = (i: number): string => JSON.stringify({
  userName: `user${i}`, email: `user${i}.x@example.org`, firstName: '東京都', lastName: ' padded ', birthDateRaw: 'line\nbreak', city: 'Δημήτρης',
  address2: 'O\'Brien & Sons <Ltd>', centerName: 'Zoë Ångström', releaseMessage: 'emoji 😀', nickname: '"quoted"', mixed: `é\t東${'x'.repeat(i % 20)}\\ü`,
  ...Object.fromEntries(Array.from({ length: 30 }, (_, k) => [`member${k}Name`, k % 3 === 0 ? `value ${k} of ${i} and more` : k % 3 === 1 ? k * i : k % 2 === 0])),
  nested: { a: 1, 'ü': 'ü', list: ['x', 'Ω', { b: null }] }, ...(i % 2 ? { '1': 'one' } : {}), [`ascii${i % 4}`]: i,
});

const exchangeOf = (body: Buffer): Exchange => ({
  id: 'x', title: 'x', origin: { source: 'case', vouched: true, case: 1 }, startedAt: '', durationMs: 0,
  request: { method: 'POST', url: 'http://svc.test/user/confirmemail', headers: { 'content-type': 'application/json' }, body: '{}' },
  response: { status: 200, headers: { 'content-type': 'application/json' }, body, size: body.length, sha256: '' },
});

describe('plainJsonBytes: an answer read from its bytes', () => {
  it('reads records with non-ASCII values and names, escapes beside them, as parseJson reads their decoded text', () => {
    for (let i = 0; i < 40; i++) expect(agreeBytes(Buffer.from(record(i), 'utf8'))).toBe(true);
    for (const t of ['"é"', '"\\u00e9é"', '"東京都 and a longer tail"', '["😀", "a\\"😀\\"b", "ß\\\\"]', '{"é":1,"e":2}', '{"":"","a":"Ω"}', '-0', '[1,"x",true,null]']) {
      expect(agreeBytes(Buffer.from(t, 'utf8')), t).toBe(true);
    }
  });

  it('agrees with the decoded text on generated JSON of any characters, and on byte-level mutations of the records', () => {
    fc.assert(fc.property(fc.jsonValue({ stringUnit: 'grapheme' }), fc.boolean(), (v, indent) => { agreeBytes(Buffer.from(JSON.stringify(v, null, indent ? 2 : undefined), 'utf8')); }), { seed: 7, numRuns: 1500 });
    const records = Array.from({ length: 8 }, (_, i) => Buffer.from(record(i), 'utf8'));
    const bytes = [0x80, 0xbf, 0xc3, 0xe9, 0xef, 0xf0, 0xff, 0x22, 0x5c, 0x01, 0x20, 0x7f];
    let read = 0;
    fc.assert(fc.property(fc.constantFrom(...records), fc.nat(), fc.constantFrom(...bytes), fc.constantFrom(0, 1), (b, at, byte, drop) => {
      const i = at % (b.length + 1);
      if (agreeBytes(Buffer.concat([b.subarray(0, i), Buffer.from([byte]), b.subarray(i + drop)]))) read++;
    }), { seed: 11, numRuns: 3000 });
    expect(read).toBeGreaterThan(300); // some mutations (a space, a byte in a value) still read
  });

  it('hands back bytes that are no UTF-8, or that begin with a byte-order mark; the view then answers as before', () => {
    for (const b of [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]), Buffer.from('{"a":"\xc3"}', 'latin1'), Buffer.from('\ufeff{"a":1}', 'utf8'), Buffer.from('"\xed\xa0\x80"', 'latin1')]) {
      expect(plainJsonBytes(b)).toBe(NOT_PLAIN);
      expect(parseJsonBytes(b)).toBeUndefined();
    }
    const bom = new ExchangeView(exchangeOf(Buffer.from('\ufeff{"a":"é"}', 'utf8')), { namespaces: {} as never }).json();
    expect(bom.ok && bom.value.value).toEqual({ a: 'é' });
    const broken = new ExchangeView(exchangeOf(Buffer.from('{"a":"\xe9"}', 'latin1')), { namespaces: {} as never }).json();
    expect(broken).toEqual({ ok: false, reason: 'the body is not valid UTF-8' });
    const read = new ExchangeView(exchangeOf(Buffer.from(record(3), 'utf8')), { namespaces: {} as never }).json();
    expect(read.ok && sameJson(read.value.value, JSON.parse(record(3)) as JsonValue)).toBe(true);
  });

  it('never takes a name it knows for the Latin-1 view of another name\'s bytes', () => {
    // "Ã©" is how the bytes of "é" (C3 A9) read in Latin-1; read as text first, it must not become a
    // name the byte path then finds in them.
    for (let i = 0; i < 3; i++) expect(plainJsonListed('{"x":{"Ã©":1,"z":2}}')).not.toBe(NOT_PLAIN);
    for (let i = 0; i < 3; i++) {
      const read = plainJsonBytes(Buffer.from('{"x":{"é":1,"z":2}}', 'utf8'));
      expect(read !== NOT_PLAIN && Object.keys((read.value as { x: object }).x)).toEqual(['é', 'z']);
    }
  });

  it('tells known names apart in every byte, whatever their length against the four-byte words', () => {
    const names = Array.from({ length: 11 }, (_, n) => 'abcdefghijk'.slice(0, n));
    const object = (ns: readonly string[]): string => `{${ns.map((n, k) => `${JSON.stringify(n)}:${k}`).join(',')}}`;
    for (let i = 0; i < 3; i++) expect(agreeBytes(Buffer.from(object(names)))).toBe(true); // known, and guessed in this order
    for (const name of names.filter((n) => n.length > 0)) {
      for (let at = 0; at < name.length; at++) {
        const other = `${name.slice(0, at)}Z${name.slice(at + 1)}`;
        const ns = names.map((n) => (n === name ? other : n));
        const read = plainJsonBytes(Buffer.from(object(ns)));
        expect(read !== NOT_PLAIN && Object.keys(read.value as object), `${name} -> ${other}`).toEqual([...ns]);
      }
    }
  });
});
