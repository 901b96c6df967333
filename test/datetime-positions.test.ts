// isDatetime (lib/contract/formats.ts) reads the JSON and SOAP datetime forms position by position;
// it must accept exactly what the expressions with the calendar rule accept. The yardstick is that
// rule written over the expressions' groups, as it was before. The rules read from a string's bytes
// (JSON_CODES_PASS, for a proven record: lib/checks/fast-record.ts) must pass exactly what the
// datetime and guid rules pass.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDatetime, JSON_DATETIME, SOAP_DATETIME } from '../lib/contract/formats.js';
import { DATETIME, GUID } from '../lib/contract/types.js';
import { JSON_CODES_PASS, JSON_VALUE_RULES } from '../lib/contract/values.js';

const daysIn = (y: number, m: number): number => (m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

function byExpression(text: string, pattern: RegExp): boolean {
  const m = pattern.exec(text);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysIn(y, mo) && h <= 23 && mi <= 59 && s <= 59;
}

/** Datetimes near the edges of every field, then edited: a character replaced, dropped or inserted. */
const datetime = fc.tuple(fc.integer({ min: 0, max: 10000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 9999999 }))
  .map(([y, mo, d, h, mi, s, f]) => `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}.${String(f).padStart(7, '0')}`);
const edited = fc.tuple(datetime, fc.nat(), fc.constantFrom('', '0', '9', '-', ':', 'T', '.', ' ', 'Z', '\n', '٣', 'a', '/'), fc.constantFrom(0, 1), fc.boolean())
  .map(([t, at, s, drop, soap]) => {
    const text = soap ? t.slice(0, 19) : t;
    const i = at % (text.length + 1);
    return text.slice(0, i) + s + text.slice(i + drop);
  });

describe('isDatetime read by position', () => {
  it('accepts exactly what the expressions and the calendar accept, in both forms', () => {
    fc.assert(fc.property(edited, (t) => {
      expect(isDatetime(t, JSON_DATETIME), t).toBe(byExpression(t, JSON_DATETIME));
      expect(isDatetime(t, SOAP_DATETIME), t).toBe(byExpression(t, SOAP_DATETIME));
    }), { seed: 27, numRuns: 20000 });
  });

  it('judges the edges of the calendar as the expressions do', () => {
    const cases = ['2024-02-29T12:00:00.0000001', '2023-02-29T12:00:00.0000000', '1900-02-29T00:00:00.0000000', '2000-02-29T00:00:00.0000000',
      '0000-01-01T00:00:00.0000000', '0001-01-01T00:00:00.0000000', '9999-12-31T23:59:59.9999999', '2026-04-31T00:00:00.0000000',
      '2026-13-01T00:00:00.0000000', '2026-00-10T00:00:00.0000000', '2026-01-00T00:00:00.0000000', '2026-01-01T24:00:00.0000000',
      '2026-01-01T23:60:00.0000000', '2026-01-01T23:59:60.0000000', '2026-01-01T23:59:59.000000', '2026-01-01T23:59:59.00000000',
      '2026-01-01T23:59:59.0000000Z', '2026-01-01t23:59:59.0000000', '2026-01-01T23:59:59', '2026-01-01 23:59:59', '+026-01-01T23:59:59'];
    for (const t of cases) for (const p of [JSON_DATETIME, SOAP_DATETIME]) expect(isDatetime(t, p), `${t} ${p.source}`).toBe(byExpression(t, p));
    expect(cases.filter((t) => isDatetime(t, JSON_DATETIME))).toEqual(['2024-02-29T12:00:00.0000001', '2000-02-29T00:00:00.0000000', '0001-01-01T00:00:00.0000000', '9999-12-31T23:59:59.9999999']);
    expect(cases.filter((t) => isDatetime(t, SOAP_DATETIME))).toEqual(['2026-01-01T23:59:59']);
  });
});

describe('the datetime and guid rules read from bytes', () => {
  /** Whether the rule of `kind` passes `text`, read from its bytes at an offset, and as a string. */
  const both = (kind: 'datetime' | 'guid', text: string): [boolean, boolean] => {
    const bytes = Buffer.from(`"x":"${text}"`, 'latin1');
    return [JSON_CODES_PASS[kind]!(bytes, 5, bytes.length - 1), JSON_VALUE_RULES[kind](kind === 'guid' ? GUID : DATETIME, text, {}) === undefined];
  };
  const hex = fc.stringMatching(/^[0-9a-fA-F]{32}$/);
  const guidLike = fc.tuple(hex, fc.nat(), fc.constantFrom('', '0', 'f', 'F', 'g', 'G', '-', ' ', '{', 'é', '\u0000'), fc.constantFrom(0, 1))
    .map(([t, at, s, drop]) => { const i = at % (t.length + 1); return t.slice(0, i) + s + t.slice(i + drop); });

  it('passes exactly the ASCII strings the string rules pass', () => {
    let passed = 0;
    fc.assert(fc.property(edited, guidLike, (t, g) => {
      for (const [kind, text] of [['datetime', t], ['guid', g]] as const) {
        // Only ASCII without escapes is read from bytes (a proven record's plain string).
        if (!/^[\x20-\x7e]*$/.test(text) || text.includes('"') || text.includes('\\')) continue;
        const [fromBytes, fromString] = both(kind, text);
        expect({ kind, text, fromBytes }).toEqual({ kind, text, fromBytes: fromString });
        if (fromBytes) passed++;
      }
    }), { seed: 41, numRuns: 20000 });
    expect(passed).toBeGreaterThan(2000);
  });

  it('passes the forms a target writes and refuses their near misses', () => {
    expect(both('datetime', '2024-02-29T12:00:00.0000001')).toEqual([true, true]);
    expect(both('datetime', '2023-02-29T12:00:00.0000001')).toEqual([false, false]);
    expect(both('datetime', '2024-02-29T12:00:00')).toEqual([false, false]);
    expect(both('guid', '0123456789abcdefABCDEF0123456789')).toEqual([true, true]);
    expect(both('guid', '0123456789abcdefABCDEF012345678')).toEqual([false, false]);
    expect(both('guid', '01234567-89ab-cdef-ABCD-EF0123456789')).toEqual([false, false]);
  });
});
