// Lexical forms of section 2 "Types", for both wires. The schemas, the serialisers' tests and the
// checks all use these, so the rule is written once.

/** JSON datetime: ISO 8601, exactly seven fractional digits, no zone suffix. */
export const JSON_DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{7}$/;
/** SOAP datetime: no fractional digits, no zone suffix. */
export const SOAP_DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
/** JSON guid: 32 hex digits, no dashes (either case: the spec says "hexadecimal characters"). */
export const JSON_GUID = /^[0-9a-fA-F]{32}$/;
/** SOAP guid: 8-4-4-4-12. */
export const SOAP_GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A JSON integer literal: no fraction, no exponent (the lexeme, not the parsed number). */
export { INTEGER_LEXEME as JSON_INTEGER_LEXEME } from '../json/parse.js';
/** xs:int / xs:long lexical space after whitespace collapse. */
export const XSD_INTEGER = /^[+-]?\d+$/;
/** xs:boolean lexical space after whitespace collapse. */
export const XSD_BOOLEAN = /^(true|false|1|0)$/;

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** A .NET enum member name (what ServiceStack and DataContractSerializer write). */
export const ENUM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const daysIn = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;

/** The codes of a datetime judged as a string (isDatetime), at most the longer form's 27. */
const DATETIME_CODES = new Uint8Array(27);

/** Matches `pattern` and names a real calendar instant in .NET's DateTime range (years 1-9999). */
export function isDatetime(text: string, pattern: RegExp): boolean {
  // The two forms of section 2 are read position by position (every judged answer has a dozen
  // datetimes): the same characters as the expressions accept, without a match array per value.
  // Read as codes (isJsonDatetimeCodes), the one reading of both forms; a code past ASCII is in neither.
  const n = text.length;
  if ((pattern === JSON_DATETIME && n === 27) || (pattern === SOAP_DATETIME && n === 19)) {
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) return false;
      DATETIME_CODES[i] = c;
    }
    return n === 27 ? isJsonDatetimeCodes(DATETIME_CODES, 0, 27) : isInstant(DATETIME_CODES, 0);
  }
  if (pattern === JSON_DATETIME || pattern === SOAP_DATETIME) return false;
  const m = pattern.exec(text);
  if (!m) return false;
  return isCalendarInstant(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

const isCalendarInstant = (year: number, month: number, day: number, hour: number, minute: number, second: number): boolean =>
  year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && second <= 59;

/** The number `n` ASCII digits at `at` write, or -1 where one is no digit. */
function digits(codes: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const d = codes[k]! - 0x30;
    if (!(d >= 0 && d <= 9)) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** YYYY-MM-DDThh:mm:ss at `at` of `codes` (its length checked by the caller), a real instant. */
function isInstant(codes: Uint8Array, at: number): boolean {
  if (codes[at + 4] !== 0x2d || codes[at + 7] !== 0x2d || codes[at + 10] !== 0x54 || codes[at + 13] !== 0x3a || codes[at + 16] !== 0x3a) return false;
  const year = digits(codes, at, 4);
  const month = digits(codes, at + 5, 2);
  const day = digits(codes, at + 8, 2);
  const hour = digits(codes, at + 11, 2);
  const minute = digits(codes, at + 14, 2);
  const second = digits(codes, at + 17, 2);
  return month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0 && isCalendarInstant(year, month, day, hour, minute, second);
}

/** isDatetime(text, JSON_DATETIME) of the ASCII text of `codes[from, to)`, read from its codes (a
 *  proven record's bytes, fast-record.ts; isDatetime's own reading). */
export function isJsonDatetimeCodes(codes: Uint8Array, from: number, to: number): boolean {
  return to - from === 27 && codes[from + 19] === 0x2e && digits(codes, from + 20, 7) >= 0 && isInstant(codes, from);
}

/** Whether a code is a hexadecimal digit of either case (undefined, past the end of codes, is none). */
export const isHexDigitCode = (c: number | undefined): boolean => c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));

/** JSON_GUID.test of the ASCII text of `codes[from, to)`, read from its codes (test/datetime-positions.test.ts
 *  holds the two to one answer). */
export function isJsonGuidCodes(codes: Uint8Array, from: number, to: number): boolean {
  if (to - from !== 32) return false;
  for (let i = from; i < to; i++) if (!isHexDigitCode(codes[i])) return false;
  return true;
}

/** 32 hex digits -> 8-4-4-4-12, as .NET writes Guid.ToString("D"). */
export const dashedGuid = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The SOAP form of a JSON datetime: the fraction dropped. */
export const soapDatetime = (json: string): string => json.replace(/\.\d+$/, '');

/** XML whitespace collapse, as XML Schema applies it to non-string simple types. */
export const collapse = (text: string): string => text.replace(/[\t\n\r ]+/g, ' ').trim();
