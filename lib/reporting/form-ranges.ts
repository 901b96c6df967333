// Sensitive parameters of a query string or a form body (name=value&…, as a client sends a
// recoveryToken), and "name: value" lines of a plain-text answer: each value one range, read decoded.
// A form inside a JSON string (a body that quotes a query string or a form) is read as the string's
// reader reads it: a value ends at the string's closing quote, or at an escaped space, & or #.
import { CREDENTIAL_NAME_SOURCE, SENSITIVE_NAMES } from '../contract/sensitivity.js';
import { jsonTokens, tokenAt, type JsonTokens } from './json-ranges.js';
import type { KindOf, SensitiveRange } from './sensitive-ranges.js';

/** name=value in a query string or a form body, the name one of the sensitive ones; name=value also
 *  at the start of a JSON string (a quoted form). Used by exec() from lastIndex 0, within one call. */
const FORM_PARAM = new RegExp(`(^|[?&;\\s"])(${[...SENSITIVE_NAMES.keys()].join('|')}|${CREDENTIAL_NAME_SOURCE})(=|[ \\t]*:[ \\t]*)([^&#\\s]*)`, 'gi');
/** What ends a value, as read. */
const VALUE_END = /[&#\s]/;
const safeDecode = (s: string): string => { try { return decodeURIComponent(s); } catch { return s; } };

export function formRanges(text: string, kindOf: KindOf): SensitiveRange[] {
  if (!text.includes('=') && !text.includes(':')) return [];
  const out: SensitiveRange[] = [];
  // The text's JSON tokens, read only when a value holds a quote or a backslash; null: not read yet.
  let json: JsonTokens | undefined | null = null;
  FORM_PARAM.lastIndex = 0;
  for (let m = FORM_PARAM.exec(text); m; m = FORM_PARAM.exec(text)) {
    const [all, lead, name, sep, raw] = m as unknown as [string, string, string, string, string];
    // "name: value" after a quote is a JSON string's words, not a plain-text line.
    if (lead === '"' && sep !== '=') continue;
    const kind = kindOf(safeDecode(name));
    const start = m.index + all.length - raw.length;
    let value = raw;
    let read = raw;
    if (/["\\]/.test(raw)) {
      if (json === null) json = jsonTokens(text);
      const inString = json && stringRead(text, json, start, start + raw.length);
      if (inString) [value, read] = [text.slice(start, inString.end), inString.read];
    }
    if (!kind || !value) continue;
    // Split and joined: a pattern's replace of a million plus signs took 300 MB.
    const decoded = safeDecode(read.split('+').join(' '));
    out.push({ start, end: start + value.length, kind, shape: decoded, values: decoded === value ? [decoded] : [decoded, value], spelling: sep === '=' ? 'url' : 'text' });
  }
  return out;
}

/** A value that starts at `start` inside a string of a JSON text (what JSON.parse reads): where it
 *  ends as the string's reader reads it (before its closing quote, or an escaped space, & or #), and
 *  what is read up to there. Undefined when `start` is not inside a string. */
function stringRead(text: string, json: JsonTokens, start: number, max: number): { end: number; read: string } | undefined {
  const k = tokenAt(json, start);
  if (k < 0 || !json.strings[k] || start === json.starts[k]) return undefined;
  const close = Math.min(json.ends[k]! - 1, max);
  let read = '';
  let i = start;
  while (i < close) {
    const n = text[i] === '\\' ? (text[i + 1] === 'u' ? 6 : 2) : 1;
    // An escape of a valid JSON string reads as one character.
    const ch = n === 1 ? text[i]! : JSON.parse(`"${text.slice(i, i + n)}"`) as string;
    if (VALUE_END.test(ch)) break;
    read += ch;
    i += n;
  }
  return { end: i, read };
}
