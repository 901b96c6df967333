// Sensitive parameters of a query string or a form body (name=value&…, as a client sends a
// recoveryToken), and "name: value" lines of a plain-text answer: each value one range, read decoded.
import { CREDENTIAL_NAME_SOURCE, SENSITIVE_NAMES } from '../contract/sensitivity.js';
import type { KindOf, SensitiveRange } from './sensitive-ranges.js';

/** name=value in a query string or a form body, the name one of the sensitive ones. */
const FORM_PARAM = new RegExp(`(^|[?&;\\s])(${[...SENSITIVE_NAMES.keys()].join('|')}|${CREDENTIAL_NAME_SOURCE})(=|[ \\t]*:[ \\t]*)([^&#\\s]*)`, 'gi');
const safeDecode = (s: string): string => { try { return decodeURIComponent(s); } catch { return s; } };

export function formRanges(text: string, kindOf: KindOf): SensitiveRange[] {
  if (!text.includes('=') && !text.includes(':')) return [];
  const out: SensitiveRange[] = [];
  for (const m of text.matchAll(new RegExp(FORM_PARAM.source, FORM_PARAM.flags))) {
    const [all, , name, sep, value] = m as unknown as [string, string, string, string, string];
    const kind = kindOf(safeDecode(name));
    if (!kind || !value) continue;
    const decoded = safeDecode(value.replace(/\+/g, ' '));
    const start = m.index + all.length - value.length;
    out.push({ start, end: start + value.length, kind, shape: decoded, values: decoded === value ? [decoded] : [decoded, value], spelling: sep === '=' ? 'url' : 'text' });
  }
  return out;
}
