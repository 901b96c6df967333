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

/** Matches `pattern` and names a real calendar instant in .NET's DateTime range (years 1-9999). */
export function isDatetime(text: string, pattern: RegExp): boolean {
  // The two forms of section 2 are read position by position (every judged answer has a dozen
  // datetimes): the same characters as the expressions accept, without a match array per value.
  if (pattern === JSON_DATETIME) return text.length === 27 && text.charCodeAt(19) === 0x2e && digits(text, 20, 7) >= 0 && isInstant(text);
  if (pattern === SOAP_DATETIME) return text.length === 19 && isInstant(text);
  const m = pattern.exec(text);
  if (!m) return false;
  return isCalendarInstant(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

const isCalendarInstant = (year: number, month: number, day: number, hour: number, minute: number, second: number): boolean =>
  year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour <= 23 && minute <= 59 && second <= 59;

/** The number `n` ASCII digits at `at` write, or -1 where one is no digit. */
function digits(text: string, at: number, n: number): number {
  let v = 0;
  for (let k = at; k < at + n; k++) {
    const d = text.charCodeAt(k) - 0x30;
    if (!(d >= 0 && d <= 9)) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** YYYY-MM-DDThh:mm:ss at the start of `text` (its length checked by the caller), a real instant. */
function isInstant(t: string): boolean {
  if (t.charCodeAt(4) !== 0x2d || t.charCodeAt(7) !== 0x2d || t.charCodeAt(10) !== 0x54 || t.charCodeAt(13) !== 0x3a || t.charCodeAt(16) !== 0x3a) return false;
  const year = digits(t, 0, 4);
  const month = digits(t, 5, 2);
  const day = digits(t, 8, 2);
  const hour = digits(t, 11, 2);
  const minute = digits(t, 14, 2);
  const second = digits(t, 17, 2);
  return month >= 0 && day >= 0 && hour >= 0 && minute >= 0 && second >= 0 && isCalendarInstant(year, month, day, hour, minute, second);
}

/** 32 hex digits -> 8-4-4-4-12, as .NET writes Guid.ToString("D"). */
export const dashedGuid = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The SOAP form of a JSON datetime: the fraction dropped. */
export const soapDatetime = (json: string): string => json.replace(/\.\d+$/, '');

/** XML whitespace collapse, as XML Schema applies it to non-string simple types. */
export const collapse = (text: string): string => text.replace(/[\t\n\r ]+/g, ' ').trim();
