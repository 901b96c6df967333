// Which names carry secrets or personal data, and the marker that replaces their values in
// everything the harness writes: it keeps what an auditor needs (present, type, length), not the value.
import { OPERATIONS } from './operations.js';
import type { Sensitivity, Shape } from './types.js';

function collect(shape: Shape, into: Map<string, Sensitivity>): void {
  for (const f of shape.fields) {
    if (f.sensitivity) {
      into.set(f.json.toLowerCase(), f.sensitivity);
      into.set(f.soap.toLowerCase(), f.sensitivity);
    }
    const t = f.type;
    if (t.kind === 'object') collect(t.shape, into);
    if (t.kind === 'array' && t.item.kind === 'object') collect(t.item.shape, into);
    if (t.kind === 'map') collect(t.value, into);
  }
}

/** Lower-cased JSON and SOAP member names -> sensitivity, over every request and response. */
export const SENSITIVE_NAMES: ReadonlyMap<string, Sensitivity> = (() => {
  const m = new Map<string, Sensitivity>();
  for (const op of OPERATIONS) { collect(op.request, m); collect(op.response, m); }
  return m;
})();

/** Names that carry a secret by what they say, in any service (a password, a token, a session, an
 *  API key), matched on the name lower-cased with _ and . read as -. The interface's own members are
 *  never judged by this: their sensitivity is the contract's (hasApiKey is a boolean anyone may see). */
const CREDENTIAL_NAME = /pass(?:word|wd|phrase)|secret|token|api-?key|access-?key|private-?key|credential|session|(?:^|-)auth(?:$|-|ori[sz]ation|enticat)|(?:^|-)(?:pwd|pin|otp|ss-p?id|jwt|sid)$/;
/** Any member, element, parameter or header name that carries a secret: the interface's by the
 *  contract, others by what the name says. */
export function sensitivityOfName(name: string): Sensitivity | undefined {
  const lower = name.toLowerCase();
  const known = SENSITIVE_NAMES.get(lower);
  // The interface's own words (its member names among them) are the contract's to judge.
  if (known || PUBLIC_WORDS.has(lower)) return known;
  return CREDENTIAL_NAME.test(lower.replace(/[_.]/g, '-')) ? 'credential' : undefined;
}

/** The same names as a pattern source (for regular expressions that find them in markup or forms). */
export const CREDENTIAL_NAME_SOURCE = String.raw`[\w.-]*(?:pass(?:word|wd|phrase)|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credential|session|auth|pwd|pin|otp|jwt|sid)[\w.-]*`;

function words(shape: Shape, into: Set<string>): void {
  into.add(shape.name.toLowerCase());
  for (const f of shape.fields) {
    into.add(f.json.toLowerCase());
    into.add(f.soap.toLowerCase());
    const t = f.type;
    if (t.kind === 'object') words(t.shape, into);
    if (t.kind === 'array' && t.item.kind === 'object') words(t.item.shape, into);
    if (t.kind === 'map') words(t.value, into);
  }
}

/** The interface's own public words, lower-cased: route segments, operation names and keys, format
 *  names, record and member names. A secret that is one of them ("user", a segment of
 *  /user/confirmemail) is hidden where structure says it is a value, never searched for as text:
 *  masking it in a route would garble every URL and name the secret by comparison with the spec. */
export const PUBLIC_WORDS: ReadonlySet<string> = (() => {
  const w = new Set<string>(['json', 'reply', 'format', 'callback', 'soap11', 'xml', 'http', 'https']);
  for (const op of OPERATIONS) {
    for (const segment of op.route.split('/')) if (segment) w.add(segment.toLowerCase());
    w.add(op.key.toLowerCase());
    w.add(op.name.toLowerCase());
    words(op.request, w);
    words(op.response, w);
  }
  return w;
})();

/** Characters (code points) of a text, counted in place: `[...s].length` builds an array of one
 *  string per character, hundreds of MB for a value of megabytes. */
export function codePointCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

/** «credential: string, 36 chars» */
export function marker(kind: Sensitivity | 'secret header', value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const size = typeof value === 'string' ? `, ${codePointCount(value)} chars` : '';
  return `«${kind}: ${type}${size}»`;
}
