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
  const m = pattern.exec(text);
  if (!m) return false;
  // Read from the groups one by one (no slice, map or array per value: every answer has a dozen).
  const year = Number(m[1]);
  const month = Number(m[2]);
  return year >= 1 && month >= 1 && month <= 12 && Number(m[3]) >= 1 && Number(m[3]) <= daysIn(year, month)
    && Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 59;
}

/** 32 hex digits -> 8-4-4-4-12, as .NET writes Guid.ToString("D"). */
export const dashedGuid = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The SOAP form of a JSON datetime: the fraction dropped. */
export const soapDatetime = (json: string): string => json.replace(/\.\d+$/, '');

/** XML whitespace collapse, as XML Schema applies it to non-string simple types. */
export const collapse = (text: string): string => text.replace(/[\t\n\r ]+/g, ' ').trim();
