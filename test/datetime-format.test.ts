// isDatetime reads the regular expression's groups one by one (formats.ts): it must answer exactly
// as the former slice-and-map reading did, for well-formed, near-miss and random texts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDatetime, JSON_DATETIME, SOAP_DATETIME } from '../lib/contract/formats.js';

/** The former reading, kept here as the reference. */
function formerIsDatetime(text: string, pattern: RegExp): boolean {
  const m = pattern.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const days = month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 59;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** Datetimes with every field drawn past its range too (month 0-13, day 0-32, hour 0-25, …). */
const nearDatetime = fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }),
  fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 9_999_999 }))
  .map(([y, mo, d, h, mi, s, f]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(f, 7)}`);

describe('isDatetime', () => {
  it('answers as the former reading for near-valid datetimes, with and without the fraction', () => {
    fc.assert(fc.property(nearDatetime, (t) => {
      expect(isDatetime(t, JSON_DATETIME)).toBe(formerIsDatetime(t, JSON_DATETIME));
      const soap = t.replace(/\.\d+$/, '');
      expect(isDatetime(soap, SOAP_DATETIME)).toBe(formerIsDatetime(soap, SOAP_DATETIME));
    }), { seed: 24, numRuns: 20_000 });
  });

  it('answers as the former reading for random texts and one-character mutations', () => {
    fc.assert(fc.property(nearDatetime, fc.nat(), fc.string({ maxLength: 2 }), (t, at, s) => {
      const i = at % (t.length + 1);
      const mutated = t.slice(0, i) + s + t.slice(i + 1);
      expect(isDatetime(mutated, JSON_DATETIME)).toBe(formerIsDatetime(mutated, JSON_DATETIME));
    }), { seed: 3, numRuns: 20_000 });
  });

  it('keeps the calendar: 29 February only in leap years, 31 only in long months', () => {
    expect(isDatetime('2024-02-29T00:00:00.0000000', JSON_DATETIME)).toBe(true);
    expect(isDatetime('1900-02-29T00:00:00.0000000', JSON_DATETIME)).toBe(false);
    expect(isDatetime('2000-02-29T00:00:00', SOAP_DATETIME)).toBe(true);
    expect(isDatetime('2026-04-31T00:00:00.0000000', JSON_DATETIME)).toBe(false);
    expect(isDatetime('2026-12-31T23:59:59.9999999', JSON_DATETIME)).toBe(true);
    expect(isDatetime('0000-01-01T00:00:00.0000000', JSON_DATETIME)).toBe(false);
  });
});
