// Everything the harness writes or prints passes through here. Checks run on real values in memory;
// outputs carry markers instead of credentials, secret header values and (unless asked) personal
// data. Three layers:
//  1. by structure: members named as sensitive fields, in JSON and XML and forms, even when the body
//     is malformed, have their whole value replaced (and learned). The walkers are pure functions
//     from text to ranges, one file each (json-ranges.ts, xml-ranges.ts, form-ranges.ts);
//  2. by meaning: every secret the run knows (header values and their parts, configured values,
//     values learned from bodies, numbers included) is searched for in every spelling a target or a
//     writer can produce: JSON escapes, XML references, URL encoding, any letter case, invisible
//     characters between its letters (spellings.ts), hex, reversed, base64 of the value and of a whole
//     header, and written in pieces a reader reads as one (two JSON strings, CDATA sections, a comment);
//  3. by fingerprint: the tokens of every learned value (see below) and every two of its words in
//     a row, from any exchange of the run, are kept as 64-bit fingerprints (fingerprints.ts), and every
//     token of an output is looked up (decoded too: hex, also byte by byte, reversed, base64 of text
//     holding a learned token, in MIME lines, in groups of four, between other runs (a hash's group of a letter beside it too), one character past whole groups, inside base64 or of UTF-16LE bytes,
//     base32 (in lower case only when it decodes to a learned token exactly; in capitals in groups too), quoted-printable, \xHH,
//     \u{H} and CSS escapes, full-width forms; a part of it joined to another word, or fused to letters
//     when it holds letters and digits), so a
//     value learned from one account's answer is masked in
//     another's at a cost that does not grow with the number of accounts. The set is bounded
//     (MAX_LEARNED): past it, values are masked by name and shape only, and the report says so.
// Scopes: a run-wide redactor holds the header and configured secrets; scope() gives one exchange its
// own learned values on top (so per-account values never pile up in one searched list), sharing the
// fingerprints. A value shown cut before the redactor sees it ("abc…", "abc..."): a known secret's
// first characters before the mark are masked (cutPrefixRanges), a learned token's by the exchange of
// any scope alive that holds it, whichever scope (or the run-wide redactor) shows it.
//
// Nothing else is masked. A learned value is masked only where it stands whole: a token of its own
// (a datetime is one token: 00:00 in it is not a learned "00:00"), a short secret (under MIN_PART
// characters) only as a word not joined to another (2026 in 2026-11-01 is not 2026), a longer one
// inside a word only when it holds letters and digits (a learned date is not masked in a timestamp),
// two words only within one value. Never inside a marker already written. Never the harness's own words or sample
// values (lib/checks/harness-words.ts), nor the values of a request it generated, wherever the answer
// echoes them: those are hidden by name only when a target sent them, a piece of them too (it is not
// learned: pieceOfOwn), or joined to words of the target's (only those are learned:
// fingerprintTarget). Values shorter than MIN_SCANNED characters are not scanned for (replacing
// every "LA" or "true" would garble the report and point at where such values sit). Text the harness
// wrote itself (the catalogue's words, probe titles, exchange ids) is never redacted (boundary.ts), nor
// the body of a request it generated, shown wherever an output shows that request (shown(): layers 2
// and 3 pass over it, whatever was learned).
// A JSON text keeps its shape (fitted()): a marker stands inside a string's quotes, or as a string in
// a number's place; a match that runs past a closing quote (a value read across two strings) masks
// the characters on either side, never the punctuation or a name between them.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { limitMessage } from '../body-limits.js';
import { withThousands } from '../digits.js';
import { ProvenRecord } from '../checks/fast-record.js';
import { HARNESS_VALUES, HARNESS_WORDS } from '../checks/harness-words.js';
import { replaceQuoted } from '../json/closing-quote.js';
import type { KeysOf, ValuesOf } from '../checks/walk-json.js';
import { codePointCount, marker, sensitivityOfName } from '../contract/sensitivity.js';
import type { Sensitivity } from '../contract/types.js';
import { jsonLimitPassed } from '../json/limits.js';
import { NOT_PLAIN, plainJson } from '../json/plain-json.js';
import { answerHeadOf, type Exchange } from '../http/exchange.js';
import { detachedCopy, remembered } from '../detached.js';
import type { JsonValue } from '../json/value.js';
import { isElement, ParsedXml, type XmlElement } from '../xml/model.js';
import { FingerprintSet, lowerAscii, type SharedFingerprints } from './fingerprints.js';
import { formRanges } from './form-ranges.js';
import { joinedStrings, jsonRanges, jsonTokens, tokenAt, tokenValue, valuePieces, type JsonTokens } from './json-ranges.js';
import { markersIn, replaceRanges, type Range, type SensitiveRange } from './sensitive-ranges.js';
import { base32Bytes, base32End, base32Text, base64End, base64Spellings, base64Text, canonical, canonicalValue, digitGroupsReading, escapedReading, foldedText, joinedGroups, HEX_SEPARATOR, HEX_SEPARATORS, hexDumpEnd, occurrences, quotedPrintable, readCased, readsAsText, secretSpellings, utf16Base64Text, utf8Part, withoutWhitespace, type CanonicalText } from './spellings.js';
import { xmlRanges, xmlReading } from './xml-ranges.js';

export interface RedactionPolicy {
  /** Reveal personal-data fields (local debugging only); credentials are never revealed. */
  readonly showPersonalData: boolean;
  /** Values known to be secret before the run: user-supplied header values, configured credentials. */
  readonly secrets: readonly string[];
  /** Fingerprints the run keeps at most (MAX_LEARNED unless a test asks for fewer). */
  readonly maxLearned?: number;
  /** Another thread's run-wide fingerprints (`shareFingerprints`): this redactor learns into them. */
  readonly fingerprints?: SharedFingerprints;
}

type Kind = Sensitivity | 'secret header';

/** Headers whose values are secret whoever set them. */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

/** A value longer than this is no phone number or postal code written in groups (fingerprint). */
const MAX_GROUPED_LENGTH = 64;
/** Shorter values are not searched for (see the head of this file). */
export const MIN_SCANNED = 4;
/** Parts of a longer value (a header's token, a cookie's value, a word of an address) searched for on
 *  their own; a shorter secret is masked only where it stands whole. */
export const MIN_PART = 8;
/** Characters of a body an output shows at most (exchange-text.ts cuts there): learned at least that far. */
export const MAX_SHOWN_TEXT = 256 * 1024;
/** What of a long text is redacted to show its first MAX_SHOWN_TEXT characters (Redactor.head):
 *  those, and room for the markers of the secrets among them (a short secret's marker is longer). */
export const REDACTED_WINDOW = MAX_SHOWN_TEXT + 64 * 1024;
/** A text (a recorded URL, request target, method or header field: every body an output shows is
 *  cut shorter before) longer than this is shown by its head (Redactor.head), never read whole: its
 *  request's head is then longer than curl sends (1 MiB) anyway. Read whole, a recorded URL of 9 MB
 *  overflowed a pattern's stack (an internal error) at 1.3 GB. */
export const MAX_REDACTED_TEXT = 2 * 1024 * 1024;
/** Any text a scan reads at most (a curl command holds several parts): a longer one is shown by its
 *  head. Texts of 4.4 million characters of each shape that overflowed a pattern at 9 million were
 *  read whole without one. */
const MAX_SCANNED_TEXT = 4 * 1024 * 1024;
/** Fingerprints of learned values a run keeps at most: 3 * 2^20, in a table of 16 MiB allocated once
 *  (fingerprints.ts), so a run's memory is the same at 10 000 accounts as at 100 000. Past it, what is
 *  learned is masked by name and shape only, and the report says so (boundWarning). */
export const MAX_LEARNED = 3 << 20;
/** Base64 spellings shorter than this match by chance. */
const MIN_BASE64 = 8;
/** Secrets longer than this are not looked for in a text's cut-off end (cut()). */
const MAX_PREFIX_CHECKED = 1024;
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'digest', 'negotiate', 'token', 'apikey']);
/** Set-Cookie attributes: how the cookie is kept, not its value. */
const COOKIE_ATTRIBUTES = new Set(['path', 'domain', 'expires', 'max-age', 'samesite', 'secure', 'httponly', 'partitioned', 'priority']);
/** What of a secret header's value is secret: the value less its syntax, the words a peer or the
 *  harness writes anyway (an authentication scheme, a cookie's or parameter's name, a Set-Cookie
 *  attribute), which learned would be masked wherever a report says them. The items left, "; "-joined. */
export function credentialText(value: string): string {
  const scheme = /^\s*([A-Za-z][\w-]*)(?:\s+|$)/.exec(value);
  const rest = scheme && AUTH_SCHEMES.has(scheme[1]!.toLowerCase()) ? value.slice(scheme[0].length) : value;
  const out: string[] = [];
  rest.split(';').forEach((item, i) => {
    const name = /^\s*([^=\s]+)\s*(?:=|$)/.exec(item)?.[1]?.toLowerCase();
    if (i > 0 && name !== undefined && COOKIE_ATTRIBUTES.has(name)) return;
    // name=value items (a cookie, a Digest parameter): the value only.
    for (const part of item.split(',')) {
      // Not a base64 token's padding (abc==, abc=): a name's = has a value after it.
      const v = part.replace(/^\s*[\w.-]+\s*=(?=[^=])/, '').trim();
      if (v) out.push(v);
    }
  });
  return out.join('; ');
}
/** What of a secret header's value is fingerprinted: its credential when that is the whole value (an
 *  API key), else its parts of MIN_PART characters or more, space-joined. A short part is searched for
 *  only inside the whole value: `en-US` of `culture=en-US`, `temp` of ServiceStack's `ss-opt=temp`
 *  are a cookie's words, not a session's secret, and masked elsewhere they garbled the evidence. */
export function credentialWords(value: string): string {
  const credential = credentialText(value);
  if (credential === value.trim()) return credential;
  return credential.split(/[\s;,=]+/).filter((part) => part.length >= MIN_PART).join(' ');
}
/** The userinfo of a URL (`user:password` of `http://user:password@host/`), as written; undefined
 *  when it has none. The authority ends at the first / ? # or \\ (WHATWG), its userinfo at its last @. */
export function userinfoOf(url: string): string | undefined {
  if (!url.includes('@')) return undefined;
  const userinfo = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#\\]*)@/.exec(url)?.[1];
  return userinfo ? userinfo : undefined;
}

/** An e-mail address: a local part, @, and a domain with a dot in it. */
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/y;
/** A character of an address's local part (EMAIL's first class). */
const EMAIL_LOCAL = /[A-Za-z0-9._%+-]/;
/** The matches text.matchAll(EMAIL, global) gives, found from each @ instead: the regular expression
 *  tried at every position of a long run of letters went over the rest of the run each time (a
 *  256 KiB body took over a minute); tried at the start of the run before each @, it reads it once.
 *  The same matches: the earliest start of a match is the start of the local part's run before the
 *  first @ that a domain follows, never before the end of the match before. */
export function* emailMatches(text: string): Generator<RegExpExecArray> {
  let from = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', Math.max(at + 1, from))) {
    let start = at;
    while (start > from && EMAIL_LOCAL.test(text[start - 1]!)) start--;
    if (start === at) continue;
    EMAIL.lastIndex = start;
    const m = EMAIL.exec(text);
    if (m) { from = start + m[0].length; yield m; }
  }
}
/** Tokens for layer 3: what identifiers, keys, tokens, e-mail addresses and datetimes are made of
 *  (a colon joins when a letter or digit follows it: 00:00:00 is one token, "name: value" two): runs
 *  of letters, digits, _ @ + ~ . - read by code points (inTokenAt). A pattern of the whole token, its
 *  loop unbounded, kept a backtrack entry per character, and a token of nine million overflowed the
 *  expression's stack (an internal error: one client's request stopped the proxy's judge). Each
 *  token with where it starts. */
function* tokenMatches(text: string): Generator<{ readonly 0: string; readonly index: number }> {
  const n = text.length;
  let start = -1;
  for (let i = 0; i <= n;) {
    const width = i < n && text.charCodeAt(i) >= 0xd800 && text.charCodeAt(i) <= 0xdbff && i + 1 < n && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff ? 2 : 1;
    if (i < n && inTokenAt(text, i)) { if (start < 0) start = i; i += width; continue; }
    if (start >= 0) { yield { 0: text.slice(start, i), index: start }; start = -1; }
    i += width;
  }
}
/** A token less its leading and trailing . @ : - by codes (a pattern anchored at the end read a long
 *  run of them again from each of its characters). */
function trimmed(token: string): string {
  let a = 0;
  let b = token.length;
  while (a < b && asciiTrimmed(token.charCodeAt(a))) a++;
  while (b > a && asciiTrimmed(token.charCodeAt(b - 1))) b--;
  return a === 0 && b === token.length ? token : token.slice(a, b);
}
const NOT_ASCII = /[^\0-\x7f]/;
/** ASCII codes that a token takes (letters, digits, _ @ + ~ . -); a colon only when a letter or digit follows. */
const ASCII_TOKEN = new Uint8Array(128).map((_, c) => (/[\p{L}\p{N}_@+~.-]/u.test(String.fromCharCode(c)) ? 1 : 0));
const asciiAlnum = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
/** Trimmed from a token's ends (trimmed): . @ : - */
const asciiTrimmed = (c: number): boolean => c === 0x2e || c === 0x40 || c === 0x3a || c === 0x2d;
/** The words of the text of ASCII `codes[from, n)` as wordsOf gives them: the start and end of each
 *  in turn written to `into` (room for n - from + 1, or for as many as a call without `into` counted),
 *  their count times two returned. Letters of either case are read alike, so the bounds of a text are
 *  those of its lower case. */
function asciiBounds(codes: Uint8Array, n: number, into?: Int32Array, from = 0): number {
  let found = 0;
  let start = -1;
  for (let i = from; i <= n; i++) {
    const c = i < n ? codes[i]! : -1;
    const inToken = c >= 0 && (ASCII_TOKEN[c] === 1 || (c === 0x3a && i + 1 < n && asciiAlnum(codes[i + 1]!)));
    if (inToken) { if (start < 0) start = i; continue; }
    if (start < 0) continue;
    let a = start;
    let b = i;
    while (a < b && asciiTrimmed(codes[a]!)) a++;
    while (b > a && asciiTrimmed(codes[b - 1]!)) b--;
    if (b > a) {
      if (into) { into[found] = a; into[found + 1] = b; }
      found += 2;
    }
    start = -1;
  }
  return found;
}
/** wordsOf for ASCII text, by codes rather than a Unicode pattern and a replace per token: the same words. */
function asciiWords(t: string): string[] {
  const codes = Buffer.from(t, 'latin1');
  // Counted first: room for n + 1 bounds was four bytes a character (40 MB for a value of 10 MB).
  const bounds = new Int32Array(codes.length > 4096 ? asciiBounds(codes, codes.length) : codes.length + 1);
  const found = asciiBounds(codes, codes.length, bounds);
  const out: string[] = [];
  for (let k = 0; k < found; k += 2) out.push(t.slice(bounds[k], bounds[k + 1]));
  return out;
}
/** Values learned by their codes (learnAscii) at most this long: longer ones are rare. */
const ASCII_LEARNED_LENGTH = 4096;
/** The codes of the value learnAscii reads, lower-cased, written by asciiScan. */
const CODES = new Uint8Array(ASCII_LEARNED_LENGTH);
/** The bounds of its words (as asciiBounds gives them). */
const BOUNDS = new Int32Array(ASCII_LEARNED_LENGTH + 1);
/** Of the words asciiScan found last: how many have MIN_SCANNED characters or more. */
let scannedTokens = 0;
/** asciiBounds of an ASCII `value` (not longer than ASCII_LEARNED_LENGTH) in one pass over its code
 *  units, with no buffer written by a call out of JavaScript: its codes lower-cased in CODES, the bounds
 *  of its words in BOUNDS, their count times two returned (and scannedTokens set); -1, with nothing
 *  else to read, for a value that is not ASCII or too long. */
function asciiScan(value: string): number {
  const n = value.length;
  if (n > ASCII_LEARNED_LENGTH) return -1;
  let found = 0;
  let tokens = 0;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    if (i < n) {
      const c = value.charCodeAt(i);
      if (c >= 0x80) return -1;
      CODES[i] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
      // The colon's look-ahead reads the next code unit as it is (one beyond ASCII is no letter here,
      // and ends the scan at the next step anyway).
      if (ASCII_TOKEN[c] === 1 || (c === 0x3a && i + 1 < n && asciiAlnum(value.charCodeAt(i + 1)))) { if (start < 0) start = i; continue; }
    }
    if (start < 0) continue;
    let a = start;
    let b = i;
    while (a < b && asciiTrimmed(CODES[a]!)) a++;
    while (b > a && asciiTrimmed(CODES[b - 1]!)) b--;
    if (b > a) { BOUNDS[found++] = a; BOUNDS[found++] = b; if (b - a >= MIN_SCANNED) tokens++; }
    start = -1;
  }
  scannedTokens = tokens;
  return found;
}
/** Every token of a canonical text, its leading and trailing dots, @, colons and dashes trimmed
 *  (exported for test/redact-words.test.ts). */
export function wordsOf(canonicalText: string): string[] {
  if (!NOT_ASCII.test(canonicalText)) return asciiWords(canonicalText);
  const out: string[] = [];
  eachWord(canonicalText, (w) => out.push(w));
  return out;
}
/** Values whose words fingerprint() reads one by one (eachWord), never all at once. */
const STREAMED_WORDS = 64 * 1024;
/** Per BMP code unit beyond ASCII: 1 when it is a letter or digit (a token's), 2 when not, 0 not yet asked. */
const LETTER_OR_DIGIT = new Uint8Array(0x10000);
const LETTER_OR_DIGIT_PATTERN = /^[\p{L}\p{N}]$/u;
/** Whether the code point at `i` of `t` (beyond ASCII) is a letter or digit. */
function letterOrDigitAt(t: string, i: number): boolean {
  const c = t.codePointAt(i)!;
  if (c > 0xffff) return LETTER_OR_DIGIT_PATTERN.test(String.fromCodePoint(c));
  if (LETTER_OR_DIGIT[c] === 0) LETTER_OR_DIGIT[c] = LETTER_OR_DIGIT_PATTERN.test(String.fromCharCode(c)) ? 1 : 2;
  return LETTER_OR_DIGIT[c] === 1;
}
/** Whether a token goes on at `i` of `t`: a letter, a digit, _ @ + ~ . -, or a colon before one of the first two. */
function inTokenAt(t: string, i: number): boolean {
  const c = t.charCodeAt(i);
  if (c < 0x80) {
    if (ASCII_TOKEN[c] === 1) return true;
    if (c !== 0x3a || i + 1 >= t.length) return false;
    const d = t.charCodeAt(i + 1);
    return d < 0x80 ? asciiAlnum(d) : letterOrDigitAt(t, i + 1);
  }
  return letterOrDigitAt(t, i);
}
/** wordsOf's words of a canonical text, in order, one at a time (no list of them: a value of 10 MB
 *  has a million). */
function eachWord(canonicalText: string, f: (word: string) => void): void {
  for (const m of tokenMatches(canonicalText)) {
    const w = trimmed(m[0]);
    if (w.length > 0) f(w);
  }
}
/** Two words in a row, as one fingerprint (a space is never part of a token). */
const pair = (a: string, b: string): string => `${a} ${b}`;
/** A word or value the harness writes itself (harness-words.ts): never learned, never masked. */
const harnessWord = (canonicalText: string): boolean => HARNESS_WORDS.has(canonicalText) || HARNESS_VALUES.has(canonicalText);
const SAMPLE_VALUES = [...HARNESS_VALUES];
const LONGEST_SAMPLE = Math.max(...SAMPLE_VALUES.map((v) => v.length));
/** A piece of a sample value the probes send (sample-userName): what a target echoes of one, cut, in
 *  any spelling the search reads as it (a form's raw value, sample%2DuserNa). (A longer value is none:
 *  a character is spelled in 12 code units at most, &#x0010ffff;.) */
const pieceOfSample = (value: string): boolean => {
  if (value.length > 12 * LONGEST_SAMPLE) return false;
  const c = canonical(value).text;
  return SAMPLE_VALUES.some((v) => v.length > c.length && v.includes(c));
};
/** One bit per low five bits of length, first and last code: set where a harness word may be (most
 *  words are told apart here, without a lookup). */
const HARNESS_EDGE_BITS = new Uint8Array(1 << 12);
const edgeBit = (length: number, first: number, last: number): number => ((length & 31) << 10) | ((first & 31) << 5) | (last & 31);
/** The harness's words and values by edgeBit: a few each (a word of another length, or codes beyond
 *  ASCII, may share one: the words are compared whole). An array read where a Map's lookup was. */
const HARNESS_BY_EDGES: (string[] | undefined)[] = new Array<string[] | undefined>(1 << 15).fill(undefined);
for (const w of [...HARNESS_WORDS, ...HARNESS_VALUES]) {
  const bit = edgeBit(w.length, w.charCodeAt(0), w.charCodeAt(w.length - 1));
  (HARNESS_BY_EDGES[bit] ??= []).push(w);
  HARNESS_EDGE_BITS[bit >> 3]! |= 1 << (bit & 7);
}
/** harnessWord() of the text of ASCII `codes[from, to)` in lower case, with no string made. */
function harnessRange(codes: Uint8Array, from: number, to: number): boolean {
  const bit = edgeBit(to - from, lowerAscii(codes[from]!), lowerAscii(codes[to - 1]!));
  if ((HARNESS_EDGE_BITS[bit >> 3]! & (1 << (bit & 7))) === 0) return false;
  next: for (const w of HARNESS_BY_EDGES[bit]!) {
    if (w.length !== to - from) continue;
    for (let k = 0; k < w.length; k++) if (w.charCodeAt(k) !== lowerAscii(codes[from + k]!)) continue next;
    return true;
  }
  return false;
}
/** fingerprint()'s tokens and pairs of an ASCII value, its codes in CODES and the bounds of its
 *  words in BOUNDS (`found` of them; `tokens` of MIN_SCANNED characters or more), or in `codes` and
 *  `bounds`: the same fingerprints, added in the same order, as from wordsOf(canonicalValue(value)),
 *  with no string made. */
function learnAscii(fingerprints: FingerprintSet, found: number, withParts: boolean, pairs: boolean, tokens = scannedTokens, codes: Uint8Array = CODES, bounds: Int32Array = BOUNDS): void {
  for (let k = 0; k < found; k += 2) {
    const from = bounds[k]!;
    const to = bounds[k + 1]!;
    if (to - from >= MIN_SCANNED && (tokens === 1 || withParts || to - from >= MIN_PART) && !harnessRange(codes, from, to)) fingerprints.addFolded(codes, from, to);
  }
  if (!pairs) return;
  for (let k = 2; k < found; k += 2) {
    const from = bounds[k - 2]!;
    const to = bounds[k - 1]!;
    const from2 = bounds[k]!;
    const to2 = bounds[k + 1]!;
    if (to - from + to2 - from2 >= MIN_SCANNED && !(harnessRange(codes, from, to) && harnessRange(codes, from2, to2))) fingerprints.addFoldedPair(codes, from, to, from2, to2);
  }
}

/** learnAscii of the ASCII text of `codes[from, to)`, the codes read where they are: its words'
 *  bounds in `bounds` (BOUNDS holds those of a text of at most ASCII_LEARNED_LENGTH). */
function learnAsciiCodes(fingerprints: FingerprintSet, codes: Uint8Array, from: number, to: number, withParts: boolean, pairs: boolean, bounds: Int32Array = BOUNDS): void {
  const found = asciiBounds(codes, to, bounds, from);
  let tokens = 0;
  for (let k = 0; k < found; k += 2) if (bounds[k + 1]! - bounds[k]! >= MIN_SCANNED) tokens++;
  learnAscii(fingerprints, found, withParts, pairs, tokens, codes, bounds);
}

/** learnAscii of a long ASCII value (past ASCII_LEARNED_LENGTH), its codes and bounds made for it:
 *  a byte a character and two numbers a word, where its words' strings and pairs were 30 bytes a
 *  character. */
function learnLongAscii(fingerprints: FingerprintSet, value: string, withParts: boolean, pairs: boolean): void {
  // As written: the bounds, the harness's words and the fingerprints read letters of either case alike.
  const codes = Buffer.from(value, 'latin1');
  learnAsciiCodes(fingerprints, codes, 0, codes.length, withParts, pairs, new Int32Array(asciiBounds(codes, codes.length)));
}

interface Secret {
  readonly marker: string;
  /** Masked only where it stands whole (a short secret). */
  readonly whole: boolean;
  /** It holds \\, & or %: searched in the text only case-folded too (asked once, not at every scan:
   *  a secret of megabytes tested so at each scan was a third of a report's time). */
  readonly folds: boolean;
}

const FOLDED_ONLY = /[\\&%]/;

/** Values at least this long have their spellings made only for a text that may hold one (a
 *  spelling is never shorter than the value less two characters: SecretTable.within). Kept made, a
 *  value of 9 MiB's hex, reversed and six base64 spellings held 143 MB per scope that learned it. */
const LAZY_SPELLED = 64 * 1024;

/** The values a scope searches for: every spelling (canonical form, hex, reversed) of each; and their
 *  base64 spellings. A value of LAZY_SPELLED characters or more is kept as it is (`long`). */
class SecretTable {
  readonly spelled = new Map<string, Secret>();
  readonly base64 = new Map<string, string>();
  /** Shortest first. */
  private readonly long: { readonly value: string; readonly kind: Kind }[] = [];
  /** The last `within` that spelled long values: how many (the shortest), and the spellings. */
  private expanded: { readonly fit: number; readonly spelled: ReadonlyMap<string, Secret>; readonly base64: ReadonlyMap<string, string> } | undefined;

  add(value: string, kind: Kind): void {
    this.expanded = undefined;
    if (value.length >= LAZY_SPELLED) {
      if (this.long.some((l) => l.value === value)) return;
      this.long.push({ value, kind });
      this.long.sort((a, b) => a.value.length - b.value.length);
      return;
    }
    SecretTable.spell(value, kind, this.spelled, this.base64);
  }

  /** Every spelling of `value` (canonical, hex, reversed, base64) put in `spelled` and `base64`. */
  private static spell(value: string, kind: Kind, spelled: Map<string, Secret>, base64: Map<string, string>): void {
    const c = canonicalValue(value);
    if (c.length < MIN_SCANNED || spelled.has(c) || harnessWord(c)) return;
    const mark = marker(kind, value);
    const short = c.length < MIN_PART;
    spelled.set(c, { marker: mark, whole: short, folds: FOLDED_ONLY.test(c) });
    if (short) return;
    for (const s of secretSpellings(value)) if (!spelled.has(s)) spelled.set(s, { marker: mark, whole: false, folds: FOLDED_ONLY.test(s) });
    // Lower case: searched for in the canonical reading (escapes decoded, letters folded).
    for (const b of base64Spellings(value)) if (b.length >= MIN_BASE64) base64.set(b.toLowerCase(), mark);
  }

  /** The spellings a reading of at most `length` characters may hold: the table's own, with those of
   *  each long value that may fit, made now and dropped after (its canonical form and reversal are as
   *  long as it, its hex twice as long at least, its base64 4/3 as long less two characters). */
  within(length: number): { readonly spelled: ReadonlyMap<string, Secret>; readonly base64: ReadonlyMap<string, string> } {
    let fit = 0;
    while (fit < this.long.length && this.long[fit]!.value.length - 2 <= length) fit++;
    if (!fit) return this;
    // Kept for the next call (a scan asks at each cut mark) until another fits or a value is added.
    if (this.expanded?.fit !== fit) {
      const spelled = new Map(this.spelled);
      const base64 = new Map(this.base64);
      for (const l of this.long.slice(0, fit)) SecretTable.spell(l.value, l.kind, spelled, base64);
      this.expanded = { fit, spelled, base64 };
    }
    return this.expanded;
  }

  get empty(): boolean {
    return this.spelled.size === 0 && this.long.length === 0;
  }

  /** The values and spellings longer than `length` (those a cut's end is not checked against). */
  *longerThan(length: number): Generator<string> {
    for (const needle of this.spelled.keys()) if (needle.length > length) yield needle;
    for (const l of this.long) if (l.value.length > length) yield canonicalValue(l.value);
  }
}

interface Shared {
  readonly policy: RedactionPolicy;
  readonly secretHeaders: Set<string>;
  /** Header names as written -> whether secretHeaderName says so (short names; emptied when full, and
   *  when a name is marked secret). */
  readonly secretByHeaderName: Map<string, boolean>;
  readonly global: SecretTable;
  readonly fingerprints: FingerprintSet;
  /** Values beyond ASCII already fingerprinted, one set per way of fingerprinting them (with parts,
   *  with pairs), so a value every exchange repeats is walked as strings once: adding them again would
   *  change nothing, the set never forgets. (An ASCII value is fingerprinted by its codes, for less
   *  than this lookup costs.) Short values only, each kept as a copy of its own (it may be a view of a
   *  whole body); each set emptied when full. */
  readonly fingerprinted: readonly Set<string>[];
  /** Request URLs in which the structure walk found nothing to learn: every account's request goes to
   *  one of a few, and walking one again would find nothing again (the walk reads only the text and
   *  the policy). Short ones, detached copies, emptied when full, as `fingerprinted`. */
  readonly plainUrls: Set<string>;
  /** Within learnFingerprints: the fingerprints of ASCII values are added together at its end. */
  batching: boolean;
  /** configuredOnly's redactor: the policy's secrets alone, nothing learned from a peer (made at its first use). */
  configured?: Redactor;
  /** The scopes that learned an exchange (learnExchange), weakly held: a word before a cut mark is
   *  looked up in the exchanges of those alive (a report keeps one per exchange it shows), whichever
   *  scope shows it. Dead ones are dropped when the list passes `limit`. */
  readonly cutScopes: { refs: Array<WeakRef<Redactor>>; limit: number };
}

const FINGERPRINTED_MAX = 4096;
/** Fingerprints ownUrl's redactor keeps at most: the run's given secrets and the userinfo of its URLs. */
const CONFIGURED_LEARNED = 4096;
/** Header names whose answer secretHeaderName keeps at most. */
const MAX_HEADER_NAMES = 256;
/** Canonical values the harness sent, as looked up (OwnValues, or none). */
interface OwnSet { has(canonicalText: string): boolean; readonly size: number }
/** No values: the harness's own in a scope that was not needed. */
const NO_VALUES: OwnSet = new Set<string>();
/** Own values longer than this are kept by their SHA-256: a generated value of a mebibyte (an
 *  oversized body) is recognised at any length without a copy of it per scope. */
const OWN_KEPT_LENGTH = 4096;
const digestOf = (canonicalText: string): string => createHash('sha256').update(canonicalText).digest('base64');
/** The canonical values a generated request sent: short ones as they are, long ones by digest. */
class OwnValues implements OwnSet {
  private readonly kept = new Set<string>();
  private readonly digests = new Set<string>();
  get size(): number { return this.kept.size + this.digests.size; }
  add(c: string): void { if (c.length <= OWN_KEPT_LENGTH) this.kept.add(c); else this.digests.add(digestOf(c)); }
  has(c: string): boolean { return c.length <= OWN_KEPT_LENGTH ? this.kept.has(c) : this.digests.size > 0 && this.digests.has(digestOf(c)); }
}
/** The canonical readings of the last generated request longer than an output shows that pieceOfOwn
 *  read: one at a time, not one copy per scope (a report keeps a scope per exchange). */
let longReadings: { readonly texts: readonly string[]; readonly readings: readonly string[] } | undefined;
const FINGERPRINTED_LENGTH = 256;

/** Whether a request's body is the harness's own text through and through: a generated request's
 *  (lib/engine/generated-requests.ts), made from the seed and the contract alone, so nothing of the
 *  target's, the configuration's or the user's is in it (its headers are another matter: --header
 *  values go with every request). Shown exactly as sent wherever the request is shown: masking a
 *  value learned elsewhere inside it would hide nothing (the text is the harness's), would tell that
 *  the value is a piece of it, and would leave a request that cannot be replayed. */
export const ownRequestBody = (ex: Exchange): boolean => ex.origin?.source === 'generated' && ex.request.body !== undefined;

/** A piece of an output: its text, and whether it is the harness's own (shown as it is). */
export type ShownPart = readonly [text: string, own: boolean];

export class Redactor {
  private readonly shared: Shared;
  private readonly local: SecretTable;
  /** Values the harness itself sent in this scope's exchange (a generated request's), canonical. */
  private readonly own = new OwnValues();
  /** The texts of this scope's generated request (its URL and body, whole: a target may echo a value
   *  that runs past what an output shows), and their canonical readings once pieceOfOwn needs them
   *  (kept here when short, else in longReadings): undefined for any other exchange, and in the
   *  run-wide redactor. */
  private ownTexts: string[] | undefined;
  private ownReadings: string[] | undefined;
  /** Outputs this scope made of the harness's own text and others (shown()), each with its parts. */
  private readonly shownParts = new Map<string, readonly ShownPart[]>();
  /** The exchange this scope learned (learnExchange), and its words (cutWords) once a value cut
   *  before a cut mark is looked up in them (cutPrefixRanges). */
  private exchange: Exchange | undefined;
  /** Learns fingerprints alone (learnFingerprints' scope, never shown): no spellings are kept. */
  private fingerprintsOnly = false;
  private exchangeWords: string[] | undefined;
  /** cutWordLearned's answers by the word and the one before it: a text repeats its words. */
  private cutLearned: Map<string, number | undefined> | undefined;
  /** cutRunHidden's answers by the run. */
  private cutRuns: Map<string, boolean> | undefined;

  constructor(policy: RedactionPolicy);
  constructor(policy: RedactionPolicy, shared: Shared);
  constructor(policy: RedactionPolicy, shared?: Shared) {
    this.shared = shared ?? { policy, secretHeaders: new Set(SECRET_HEADERS), secretByHeaderName: new Map(), global: new SecretTable(), fingerprints: new FingerprintSet(policy.fingerprints?.max ?? policy.maxLearned ?? MAX_LEARNED, policy.fingerprints), fingerprinted: [new Set(), new Set(), new Set(), new Set()], plainUrls: new Set(), batching: false, cutScopes: { refs: [], limit: MIN_CUT_SCOPES } };
    this.local = shared ? new SecretTable() : this.shared.global;
    if (!shared) for (const s of policy.secrets) this.learnHeaderValue(s, true);
  }

  /** A redactor for one exchange: what it learns is searched for in its own outputs (and, as
   *  fingerprints, in every output of the run). */
  scope(): Redactor {
    return new Redactor(this.shared.policy, this.shared);
  }

  /** Whether a member of this sensitivity is hidden under the policy. */
  hides(kind: Sensitivity | undefined): kind is Sensitivity {
    return kind === 'credential' || (kind === 'personal' && !this.shared.policy.showPersonalData);
  }

  /** Marks a header name as carrying a secret (user-supplied headers). */
  secretHeader(name: string): void {
    this.shared.secretHeaders.add(name.toLowerCase());
    this.shared.secretByHeaderName.clear();
  }

  /** The run-wide fingerprints in shared memory, for a judging worker's redactor to learn into
   *  (lib/engine/judge-pool.ts): what it learns is masked in this redactor's outputs. */
  shareFingerprints(): SharedFingerprints {
    return this.shared.fingerprints.share();
  }

  /** Header names marked as carrying a secret (the policy's and `secretHeader`'s). */
  get secretHeaderNames(): string[] {
    return [...this.shared.secretHeaders];
  }

  /** Fingerprints learned so far (the one part of redaction that grows with the run, up to its bound). */
  get fingerprintBytes(): number {
    return this.shared.fingerprints.bytes;
  }

  /** Said in the report once the set of learned values is full. */
  get boundWarning(): string | undefined {
    const f = this.shared.fingerprints;
    return f.full ? `the set of learned secrets reached its bound (${withThousands(f.max)} fingerprints, ${f.maxBytes >= 1048576 ? `${f.maxBytes / 1048576} MiB` : `${f.maxBytes / 1024} KiB`}): values learned past it are masked by name and shape only (a member, element or parameter named as sensitive; an e-mail address), not wherever else they appear` : undefined;
  }

  /**
   * A URL the harness was given or built itself (the base URL, the URL of a request it sent) as every
   * output shows it: its userinfo, the secrets the run was given and the values of parameters named
   * as sensitive masked; nothing masked that a peer taught (a target's credential spelled like the
   * target's host had hidden the deployment judged from every report, and stopped every replay).
   */
  ownUrl(url: string): string {
    const configured = this.configuredOnly();
    configured.learnUserinfo(url);
    return configured.text(url);
  }

  /** A redactor of the run's given secrets alone (its policy's, the header names it was told are
   *  secret, the userinfo of the URLs ownUrl was given): for what the harness was given or built
   *  itself, the request it sent among them, which nothing a peer taught may mask. */
  configuredOnly(): Redactor {
    const { policy, secretHeaders } = this.shared;
    const configured = (this.shared.configured ??= new Redactor({ showPersonalData: policy.showPersonalData, secrets: policy.secrets, maxLearned: CONFIGURED_LEARNED }));
    const own = configured.shared;
    if (own.secretHeaders.size !== secretHeaders.size) {
      for (const name of secretHeaders) own.secretHeaders.add(name);
      own.secretByHeaderName.clear();
    }
    return configured;
  }

  /** Whether a value is one the harness sent: a sample value, or a value of this scope's generated request. */
  isOwn(value: string): boolean {
    const c = canonicalValue(value);
    return HARNESS_VALUES.has(c) || this.own.has(c);
  }

  /**
   * An output made of parts: the harness's own text (`own`: a generated request's body, or what
   * writes it in a curl command), shown as it is, and others the caller redacted already. Kept with
   * its parts, so that line() of the very same text (the boundary's pass over every report string,
   * boundary.ts) redacts the others again, with whatever was learned since, and never the own ones:
   * a value the target sent is learned as ever and masked everywhere else, its answer included (a
   * target's value inside the answer's echo of a generated value is masked there: only the request
   * as the harness sent it is spared).
   */
  shown(parts: readonly ShownPart[]): string {
    const text = parts.map(([t]) => t).join('');
    if (parts.some(([, own]) => own)) this.shownParts.set(text, parts);
    return text;
  }

  private remember(value: string, kind: Kind, table: SecretTable = this.local): void {
    if (this.own.size > 0 && this.own.has(canonicalValue(value))) return;
    // A scope that only learns fingerprints (learnFingerprints) is dropped unread: its table would hold
    // each value's every spelling (hex, reversed, base64) for nothing, a value of 9 MiB's 150 MB.
    if (!this.fingerprintsOnly) table.add(value, kind);
    // A header value's parts are fingerprinted on their own: "session" of "session=…" is no secret.
    if (kind === 'secret header') this.fingerprint(credentialWords(value), false, false);
    else this.fingerprintTarget(value);
  }

  /** A secret header value: whole, its base64 (layer 2 adds it), its parts a target may echo alone
   *  ("Bearer <token>", "session=<value>; …"), and for Basic the decoded user:password. */
  private learnHeaderValue(value: string, global: boolean): void {
    const table = global ? this.shared.global : this.local;
    const credential = credentialText(value);
    // A scheme word alone in an answer ("Bearer"): nothing secret. A configured secret is learned whatever it is.
    if (!credential && !global) return;
    this.remember(value, 'secret header', table);
    for (const part of credential.split(/[\s;,=]+/)) if (part.length >= MIN_PART) this.remember(part, 'secret header', table);
    const basic = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value)?.[1];
    if (basic) this.learnUserPassword(Buffer.from(basic, 'base64').toString('utf8'), table);
  }

  /** A user:password pair (Basic's, a URL's): whole, and each part long enough to be no common word. */
  private learnUserPassword(pair: string, table: SecretTable = this.local): void {
    this.remember(pair, 'secret header', table);
    for (const part of pair.split(':')) if (part.length >= MIN_PART) this.remember(part, 'secret header', table);
  }

  /** A URL's userinfo (RFC 3986 3.2.1, deprecated, yet a recording may hold `http://user:password@host`):
   *  a credential, as written and percent-decoded, masked whether or not personal data is shown. */
  private learnUserinfo(url: string): void {
    const userinfo = userinfoOf(url);
    if (userinfo === undefined) return;
    this.learnUserPassword(userinfo);
    let decoded = userinfo;
    try { decoded = decodeURIComponent(userinfo); } catch { /* a stray %: as written only */ }
    if (decoded !== userinfo) this.learnUserPassword(decoded);
  }

  /** Learns everything an exchange holds: its secret-carrying headers and its bodies (as far as an
   *  output may show them). A generated request is the harness's own: its values are shown as sent,
   *  and wherever the answer echoes them. */
  learnExchange(ex: Exchange): void {
    if (this.exchange === undefined) this.listCutScope();
    this.exchange = ex;
    this.learnHeaders(ex.request.headers);
    this.learnUserinfo(ex.request.url);
    if (ex.origin?.source === 'generated') this.ownValues(ex);
    else {
      this.learn(ex.request.url);
      if (ex.request.body) this.learn(ex.request.body, MAX_SHOWN_TEXT);
    }
    // A head kept without its body (Exchange.answerHead) is shown as a response's is: learned so too.
    const head = answerHeadOf(ex);
    if (head) this.learnHeaders(head.headers);
    if (ex.response) this.learn(ex.response.body.toString('utf8'), MAX_SHOWN_TEXT);
  }

  /** The values of a request the harness generated: its own, never learned. Walked and measured only
   *  as far as an output may show the text (a generated oversized body is a mebibyte: measured whole,
   *  it was an eighth of a --generate run's CPU), as learn() reads a body cut at `shown`; the values
   *  the generator placed (Origin.ownValues) are read whole. */
  private ownValues(ex: Exchange): void {
    // Pieces in a scope only: the run-wide redactor learns every exchange, and a piece of one generated
    // request in another exchange's answer is no echo.
    const texts: string[] | undefined = this.local === this.shared.global ? undefined : (this.ownTexts = []);
    const { url, body } = ex.request;
    this.ownValuesOf(url, texts);
    this.ownValuesOf(body ?? '', texts, body === undefined ? undefined : ex.origin?.ownValues);
  }

  /** ownValues of one text. `at`: where the generator wrote the values of a JSON body
   *  (Origin.ownValues): read there, whole and wherever they stand (a target may echo all of an
   *  oversized one), not found by walking the text as JSON (a mebibyte's walk). */
  private ownValuesOf(text: string, texts: string[] | undefined, at?: readonly number[]): void {
    const part = text.slice(0, MAX_SHOWN_TEXT);
    texts?.push(text);
    const values: string[] = [];
    const ranges = at ? [...xmlRanges(part, this.sensitivityOf), ...formRanges(part, this.sensitivityOf)] : this.sensitiveRanges(part);
    for (const r of ranges) for (const v of r.values) values.push(v);
    if (at) {
      const personal = this.hides('personal');
      for (let i = 0; i < at.length; i += 3) {
        const v = at[i + 2] === 1 || personal ? tokenValue(text, at[i]!, at[i + 1]!) : undefined;
        if (v !== undefined) values.push(v);
      }
    }
    // None in a text past the body limits: measured only when it holds any (the text is the harness's,
    // walked safely; measured, an oversized SOAP body of x cost more than the rest of its reading).
    if (values.length && jsonLimitPassed(part)) return;
    for (const v of values) this.own.add(canonicalValue(v));
  }

  /**
   * Whether a target's value is a piece of this scope's generated request (the target echoed the
   * harness's text, as the reference puts 516 of a generated value's 6 398 x in displayName): hidden
   * by name where it stands, but not learned. The request is shown exactly as sent, so the piece is in
   * the report whole already; learned, it would mask the harness's own value wherever the answer
   * echoes it (a non-sensitive member's value, a finding's actual) and hide nothing. A value the
   * target adds is no piece and is learned as ever; a secret the run was given, and a secret header's
   * value, are learned whatever they are. Read as the text is searched (canonical: escapes decoded).
   */
  private pieceOfOwn(value: string): boolean {
    return this.ownTexts !== undefined && this.ownHolds(canonical(value).text);
  }

  /** Whether this scope's generated request holds a canonical text (pieceOfOwn's reading). */
  private ownHolds(c: string): boolean {
    const texts = this.ownTexts ?? [];
    let readings: readonly string[] | undefined = this.ownReadings;
    if (readings === undefined) {
      const read = (): string[] => texts.map((t) => canonical(t).text);
      if (texts.reduce((n, t) => n + t.length, 0) <= MAX_SHOWN_TEXT) readings = this.ownReadings = read();
      else readings = (longReadings = longReadings?.texts === texts ? longReadings : { texts, readings: read() }).readings;
    }
    return readings.some((t) => t.includes(c));
  }

  /**
   * fingerprint() of a target's value that a member, element or attribute named as hidden holds. In
   * a generated request's scope, its words that are pieces of the request (the harness's text, as
   * pieceOfOwn reads a whole value) are not learned, nor two of them in a row: learned, they would
   * mask the harness's value wherever else it stands (another member's echo, a finding's message,
   * another exchange). What the target added is learned as a value of its own would be: its one
   * word, or each word of MIN_PART characters, and every two words in a row with one of its own.
   */
  private fingerprintTarget(value: string, canonicalText?: string, detached = false): void {
    if (this.ownTexts !== undefined && !this.shared.fingerprints.fullSoFar) {
      const words = wordsOf(canonicalText ?? canonicalValue(value));
      const own = words.map((w) => this.ownHolds(w));
      if (own.includes(true)) { this.fingerprintWords(words, false, true, own); return; }
    }
    this.fingerprint(value, false, true, canonicalText, detached);
  }

  /**
   * What an exchange that will never be shown leaves behind: the fingerprints of its secrets, so that
   * they are masked wherever else they turn up. Given the body already parsed (`parsed`: a JSON value
   * or an XML tree), its members or elements are walked as values, far cheaper than walking the text;
   * given a record proven from its bytes (fast-record.ts), the values that walk would learn, in its order;
   * otherwise the text is learned.
   */
  learnFingerprints(ex: Exchange, parsed?: JsonValue | ParsedXml | ProvenRecord, keysOf: KeysOf = Object.keys, valuesOf: ValuesOf = NO_LISTED_VALUES): void {
    this.shared.batching = true;
    try {
      this.learnAllFingerprints(ex, parsed, keysOf, valuesOf);
    } finally {
      // Added now, not at the next read: a judging worker's redactor is read by the main thread.
      this.shared.batching = false;
      this.shared.fingerprints.flush();
    }
  }

  private learnAllFingerprints(ex: Exchange, parsed: JsonValue | ParsedXml | ProvenRecord | undefined, keysOf: KeysOf, valuesOf: ValuesOf): void {
    this.fingerprintHeaders(ex.request.headers);
    const head = answerHeadOf(ex);
    if (head) this.fingerprintHeaders(head.headers);
    // A scope of its own: what the text walk learns besides fingerprints is dropped with it, so the
    // run-wide list of spelled secrets never grows with the number of accounts. Made only when a
    // walk needs one: most exchanges (a known URL, JSON both ways) learn fingerprints alone.
    let scope: Redactor | undefined;
    const scoped = (): Redactor => {
      if (!scope) { scope = this.scope(); scope.fingerprintsOnly = true; }
      return scope;
    };
    if (ex.origin?.source === 'generated') scoped().ownValues(ex);
    else {
      if (!this.shared.plainUrls.has(ex.request.url)) scoped().learnUrl(ex.request.url); // a query string's sensitive parameters
      if (userinfoOf(ex.request.url) !== undefined) scoped().learnUserinfo(ex.request.url);
      if (ex.request.body) {
        // The harness's own requests (an accounts line's record) are flat objects of plain values: read
        // as text. Anything else is parsed, as a target's answer is.
        if (!this.learnFlatObject(ex.request.body, this.own)) {
          const request = parseQuietly(ex.request.body);
          if (request !== undefined) this.fingerprintValues(request, undefined, Object.keys, this.own, REQUEST_ROOT);
          else scoped().learn(ex.request.body, MAX_SHOWN_TEXT);
        }
      }
    }
    if (parsed instanceof ParsedXml) scoped().fingerprintElement(parsed.root);
    else if (parsed instanceof ProvenRecord) {
      // fingerprintValues' every call of fingerprintHidden, in its order: a leaf is learned where a
      // name above it is hidden (its strongest kind is hidden whenever any is).
      const { leaves, leafKinds, bytes, spans } = parsed;
      const learner = scope ?? this;
      const own = scope?.own ?? NO_VALUES;
      for (let k = 0; k < leaves.length; k++) {
        if (!this.hides(leafKinds[k])) continue;
        const from = spans[2 * k]!;
        if (from < 0 || !learner.fingerprintHiddenCodes(bytes, from, spans[2 * k + 1]!, own)) learner.fingerprintHidden(parsed.leafText(k), own, true);
      }
    }
    // A scope's values are its own only for a generated request's: none without a scope.
    else if (parsed !== undefined) (scope ?? this).fingerprintValues(parsed, undefined, keysOf, scope?.own ?? NO_VALUES, ROOT_MEMBER, valuesOf);
    else if (ex.response) scoped().learn(ex.response.body.toString('utf8'), MAX_SHOWN_TEXT);
  }

  /** The values of the secret-carrying headers, fingerprinted with their parts. */
  private fingerprintHeaders(headers: Readonly<Record<string, string>>): void {
    for (const name of Object.keys(headers)) if (this.secretHeaderName(name)) this.fingerprint(credentialWords(headers[name]!), false, false);
  }

  /** `canonicalText`: canonicalValue(value), when the caller has it already. `detached`: the value
   *  holds no other text (a parsed body's value: JSON.parse and plain-json.ts copy theirs), so the
   *  memo needs no copy of its own. */
  private fingerprint(value: string, withParts: boolean, pairs = !withParts, canonicalText?: string, detached = false): void {
    const { fingerprints } = this.shared;
    if (fingerprints.fullSoFar) return;
    // A number written in groups (+46 70 123 45 67, 753 20) also as one: it is shown compact too. Its
    // groups are no words: two in a row of three or more (+46 70, 45 67) begin or end many another
    // number, and the whole is found in any grouping (digitGroupsReading), so they are not learned as
    // pairs. Two groups are the whole value, kept as a pair (5678, 9567 is its other punctuation).
    const first = value.charCodeAt(0);
    if ((first === 0x2b || (first >= 0x30 && first <= 0x39)) && value.length <= MAX_GROUPED_LENGTH) {
      const joined = joinedGroups(value);
      if (joined !== undefined) {
        this.fingerprint(joined, false, false);
        if (value.length - joined.length > 1) pairs = false; // one separator between each two groups
      }
    }
    // An ASCII value (nearly every one) by its codes, its canonical form being its lower case: cheaper
    // than the memo's lookup and entry (and their cache misses), which spare the string path only.
    const found = asciiScan(value);
    if (found >= 0) {
      learnAscii(fingerprints, found, withParts, pairs);
      // Deferred to the end of learnFingerprints only: any other learning is in the set at once.
      if (!this.shared.batching) fingerprints.flush();
      return;
    }
    // By how it is fingerprinted, then the value itself: no key string built per value.
    const memo = value.length <= FINGERPRINTED_LENGTH ? this.shared.fingerprinted[(withParts ? 2 : 0) + (pairs ? 1 : 0)]! : undefined;
    if (memo?.has(value)) return;
    if (value.length > STREAMED_WORDS && !NOT_ASCII.test(value)) {
      learnLongAscii(fingerprints, value, withParts, pairs);
      if (!this.shared.batching) fingerprints.flush();
      return;
    }
    const text = canonicalText ?? canonicalValue(value);
    if (text.length > STREAMED_WORDS) this.fingerprintEachWord(text, withParts, pairs);
    else this.fingerprintWords(wordsOf(text), withParts, pairs);
    // Remembered only when every fingerprint was taken (a full set takes none anyway).
    if (memo !== undefined && !fingerprints.full) {
      if (memo.size >= FINGERPRINTED_MAX) memo.clear();
      memo.add(detached ? value : detachedCopy(value));
    }
  }

  /** fingerprintWords(wordsOf(canonicalText)) read word by word, no list of them made: the same
   *  fingerprints in the same order (tokens, then pairs). A value of 10 MB has a million words, and
   *  their strings and pairs held at once took 130 MB. */
  private fingerprintEachWord(canonicalText: string, withParts: boolean, pairs: boolean): void {
    const { fingerprints } = this.shared;
    let tokens = 0;
    eachWord(canonicalText, (t) => { if (t.length >= MIN_SCANNED) tokens++; });
    eachWord(canonicalText, (t) => { if (t.length >= MIN_SCANNED && (tokens === 1 || withParts || t.length >= MIN_PART) && !harnessWord(t)) fingerprints.add(t); });
    if (!pairs) return;
    let a: string | undefined;
    eachWord(canonicalText, (b) => {
      if (a !== undefined && a.length + b.length >= MIN_SCANNED && !(harnessWord(a) && harnessWord(b))) fingerprints.add(pair(a, b));
      a = b;
    });
  }

  /** fingerprint() of a value's words (canonical): each token, and every two words in a row. `own`:
   *  which words are the harness's (fingerprintTarget), left out, and two of them in a row too. */
  private fingerprintWords(words: readonly string[], withParts: boolean, pairs: boolean, own?: readonly boolean[]): void {
    const { fingerprints } = this.shared;
    const tokens = words.filter((t, i) => t.length >= MIN_SCANNED && own?.[i] !== true);
    for (const t of tokens) if ((tokens.length === 1 || withParts || t.length >= MIN_PART) && !harnessWord(t)) fingerprints.add(t);
    // A long token echoed hex-encoded or reversed in another exchange is found by decoding and
    // reversing the tokens of the output (learnedToken), one in base64 by decoding its base64 tokens
    // (learnedText), not stored in those spellings too: more fingerprints for each long token would
    // be most of the set.
    // A value of several words ("Flat 9 Baker Street"), whose words are too short or too common to
    // mask alone: every two words in a row, so any two of them together are found in any output.
    if (pairs) {
      for (let i = 1; i < words.length; i++) {
        const [a, b] = [words[i - 1]!, words[i]!];
        if (a.length + b.length >= MIN_SCANNED && !(harnessWord(a) && harnessWord(b)) && !(own?.[i - 1] === true && own[i] === true)) fingerprints.add(pair(a, b));
      }
    }
  }

  /** Every string and number under a member named as hidden, at any depth. `keysOf`: how an object's
   *  names are listed (the judging's memo for a parsed answer). `holder`: what the learner knows of
   *  the name that holds `value` (NamedMember). */
  private fingerprintValues(value: JsonValue, hidden: Sensitivity | undefined, keysOf: KeysOf = Object.keys, own: OwnSet = this.own, holder: NamedMember = ROOT_MEMBER,
    valuesOf: ValuesOf = NO_LISTED_VALUES): void {
    if (value === null || typeof value === 'boolean') return;
    if (typeof value === 'string' || typeof value === 'number') {
      if (hidden) this.fingerprintHidden(typeof value === 'string' ? value : String(value), own, true);
      return;
    }
    if (Array.isArray(value)) { for (const v of value) this.fingerprintValues(v, hidden, keysOf, own, holder, valuesOf); return; }
    const keys = keysOf(value);
    // Values at hand in the order of `keys` are read by place, not looked up by name.
    const values = valuesOf(value);
    if (hidden) {
      for (let i = 0; i < keys.length; i++) this.fingerprintValues(values !== undefined ? values[i]! : value[keys[i]!]!, hidden, keysOf, own, ROOT_MEMBER, valuesOf);
      return;
    }
    // Each name's sensitivity through the names that came in this order before (namedMember): a
    // comparison of names where the lookup by name cost most of the walk.
    let before: NamedMember | undefined;
    let guess = holder.first;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      let m: NamedMember | undefined;
      if (guess !== undefined && guess.name === k) m = guess;
      else if (guess?.next !== undefined && guess.next.name === k) m = guess.next; // one name left out
      else {
        m = namedMember(k);
        if (m === undefined) {
          // A name not kept (too long, or past the bound): asked as before, no guess for the next.
          const v = values !== undefined ? values[i]! : value[k]!;
          if (v === null || typeof v === 'boolean') { before = undefined; guess = undefined; continue; }
          const kind = this.sensitivityOf(k);
          if (kind !== undefined || typeof v === 'object') this.fingerprintValues(v, kind, keysOf, own, LOOSE_MEMBER, valuesOf);
          before = undefined;
          guess = undefined;
          continue;
        }
        if (before === undefined) holder.first = m;
        else before.next = m;
      }
      before = m;
      guess = m.next;
      const v = values !== undefined ? values[i]! : value[k]!;
      // Nothing to learn in null or a boolean, nor in a string or number not hidden: not visited (a
      // record is mostly flags).
      if (v === null || typeof v === 'boolean') continue;
      const kind = this.hides(m.kind) ? m.kind : undefined;
      if (kind !== undefined || typeof v === 'object') this.fingerprintValues(v, kind, keysOf, own, m, valuesOf);
    }
  }

  /** A value under a member named as hidden, unless the harness sent it (`own`: none but a generated
   *  request's, so the canonical form is made only when there are any). `detached`: as fingerprint's. */
  private fingerprintHidden(text: string, own: OwnSet, detached: boolean): void {
    // A generated request's scope only (ownTexts): an account's exchange learns as it did.
    if (own.size > 0 || this.ownTexts !== undefined) {
      const c = canonicalValue(text);
      if (!own.has(c) && !this.pieceOfOwn(text)) this.fingerprintTarget(text, c, detached);
    } else this.fingerprint(text, false, true, undefined, detached);
  }

  /** fingerprintHidden of the ASCII text of `codes[from, to)` (a proven record's string, no escapes),
   *  read from the codes where fingerprint() would read the string's: the same fingerprints. False,
   *  with nothing learned, where the string is needed: in a scope with the harness's own values, for
   *  what may be a number written in groups, and for a long value. */
  private fingerprintHiddenCodes(codes: Uint8Array, from: number, to: number, own: OwnSet): boolean {
    const n = to - from;
    const first = codes[from]!;
    if (own.size > 0 || this.ownTexts !== undefined || n > ASCII_LEARNED_LENGTH || ((first === 0x2b || (first >= 0x30 && first <= 0x39)) && n <= MAX_GROUPED_LENGTH)) return false;
    const { fingerprints } = this.shared;
    if (fingerprints.fullSoFar) return true;
    learnAsciiCodes(fingerprints, codes, from, to, false, true);
    if (!this.shared.batching) fingerprints.flush();
    return true;
  }

  /**
   * fingerprintValues(parseQuietly(text)) of a flat JSON object, read as text: an object of at most
   * FLAT_MEMBERS members, each named once, without escapes, not an array index, each value a string
   * without escapes, an integer of at most 15 digits, true, false or null (an accounts line's request,
   * as the engine writes it). Every member is read before anything is learned: false, with nothing
   * learned, for any other text (then parsed). The same values are learned in the same order: members
   * in the order of the text (Object.keys' order for such names), a number as String of its value.
   */
  private learnFlatObject(t: string, own: OwnSet): boolean {
    const n = t.length;
    if (n > FLAT_LENGTH) return false;
    let i = skipSpace(t, 0);
    if (t.charCodeAt(i) !== 0x7b) return false;
    i = skipSpace(t, i + 1);
    let members = 0;
    let learned = 0;
    let before: NamedMember | undefined;
    let guess = FLAT_ROOT.first;
    if (t.charCodeAt(i) === 0x7d) i++;
    else {
      for (;;) {
        if (t.charCodeAt(i) !== 0x22) return false;
        const nameEnd = plainStringEnd(t, i + 1);
        if (nameEnd < 0 || nameEnd === i + 1 || nameEnd - i - 1 > MAX_NAMED_LENGTH) return false;
        const first = t.charCodeAt(i + 1);
        if (first >= 0x30 && first <= 0x39) return false; // an array index: Object.keys lists it first
        // The name through the names of the requests before (their first two, then each one's next).
        let m: NamedMember | undefined;
        if (guess !== undefined && spelled(t, i + 1, nameEnd, guess.name)) m = guess;
        else if (before === undefined && FLAT_ROOT.next !== undefined && spelled(t, i + 1, nameEnd, FLAT_ROOT.next.name)) {
          m = FLAT_ROOT.next;
          FLAT_ROOT.next = FLAT_ROOT.first;
          FLAT_ROOT.first = m;
        } else {
          m = namedMember(t.slice(i + 1, nameEnd), FLAT_NAMED);
          if (m === undefined) return false; // a name not kept: parsed instead
          if (before !== undefined) before.next = m;
          else { FLAT_ROOT.next = FLAT_ROOT.first; FLAT_ROOT.first = m; }
        }
        if (m.name === '__proto__' || members === FLAT_MEMBERS) return false;
        for (let q = 0; q < members; q++) if (FLAT_SEEN[q] === m) return false; // named twice: the last value wins
        FLAT_SEEN[members++] = m;
        before = m;
        guess = m.next;
        i = skipSpace(t, nameEnd + 1);
        if (t.charCodeAt(i) !== 0x3a) return false;
        i = skipSpace(t, i + 1);
        const c = t.charCodeAt(i);
        let from = -1;
        let to = -1;
        let number = 0;
        if (c === 0x22) {
          to = plainStringEnd(t, i + 1);
          if (to < 0) return false;
          from = i + 1;
          i = to + 1;
        } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
          from = i;
          if (c === 0x2d) i++;
          const digits = i;
          if (t.charCodeAt(i) === 0x30) i++;
          else while (i < n && t.charCodeAt(i) >= 0x30 && t.charCodeAt(i) <= 0x39) i++;
          // A fraction, an exponent, a leading zero or a long integer: parsed instead.
          if (i === digits || i - digits > 15) return false;
          to = i;
          number = 1;
        } else if (t.startsWith('true', i) || t.startsWith('null', i)) i += 4;
        else if (t.startsWith('false', i)) i += 5;
        else return false;
        if (from >= 0) {
          if (this.hides(m.kind)) {
            FLAT[learned++] = from;
            FLAT[learned++] = to;
            FLAT[learned++] = number;
          }
        }
        i = skipSpace(t, i);
        const d = t.charCodeAt(i);
        if (d === 0x7d) { i++; break; }
        if (d !== 0x2c) return false;
        i = skipSpace(t, i + 1);
      }
    }
    if (skipSpace(t, i) !== n) return false;
    for (let k = 0; k < learned; k += 3) {
      const text = t.slice(FLAT[k]!, FLAT[k + 1]!);
      // A slice of the body: fingerprint()'s memo keeps a copy of its own.
      this.fingerprintHidden(FLAT[k + 2] ? String(Number(text)) : text, own, false);
    }
    return true;
  }

  /** Every element named as hidden, as the text walk learns it (xml-ranges.ts): its character data
   *  whole, tags dropped, and each piece of it between tags; and every attribute named as hidden. */
  private fingerprintElement(e: XmlElement): void {
    for (const a of e.attrs) if (this.sensitivityOf(a.name) && !this.isOwn(a.value) && !this.pieceOfOwn(a.value)) this.fingerprintTarget(a.value);
    if (this.sensitivityOf(e.name)) {
      const pieces: string[] = [];
      const collect = (x: XmlElement): void => { for (const c of x.children) if (isElement(c)) collect(c); else pieces.push(c.text); };
      collect(e);
      const whole = pieces.join('');
      if (this.isOwn(whole) || this.pieceOfOwn(whole)) return;
      this.fingerprintTarget(whole);
      if (pieces.length > 1) for (const p of pieces) if (!this.pieceOfOwn(p)) this.fingerprintTarget(p);
      return;
    }
    for (const c of e.children) if (isElement(c)) this.fingerprintElement(c);
  }

  /** Learns the secret-carrying headers of an exchange (Set-Cookie values, echoed tokens). */
  learnHeaders(headers: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(headers)) if (this.secretHeaderName(name)) this.learnHeaderValue(value, false);
  }

  private sensitivityOf = (name: string): Sensitivity | undefined => {
    const kind = knownSensitivity(name);
    return this.hides(kind) ? kind : undefined;
  };

  /** A header whose value is secret: a known one, one the user named, or one whose name says so.
   *  Remembered per name as written (every answer names the same few), until secretHeader() names another. */
  secretHeaderName(name: string): boolean {
    const known = this.shared.secretByHeaderName;
    const was = known.get(name);
    if (was !== undefined) return was;
    const lower = name.toLowerCase();
    const secret = this.shared.secretHeaders.has(lower) || knownSensitivity(lower) === 'credential';
    if (name.length <= MAX_NAMED_LENGTH) {
      if (known.size >= MAX_HEADER_NAMES) known.clear();
      known.set(detachedCopy(name), secret);
    }
    return secret;
  }

  /** Members, elements and parameters named as sensitive (layer 1), by the three walkers. */
  private sensitiveRanges(text: string): SensitiveRange[] {
    return [...jsonRanges(text, this.sensitivityOf), ...xmlRanges(text, this.sensitivityOf), ...formRanges(text, this.sensitivityOf)];
  }

  /** Layer 1 over a text: each sensitive value learned, and the range it stands in with its marker.
   *  A value the harness sent itself is neither. */
  private structure(text: string, found = this.sensitiveRanges(text)): Range[] {
    const out: Range[] = [];
    for (const r of found) {
      if (typeof r.shape === 'string' && this.isOwn(r.shape)) continue;
      // A target's value that is a piece of a probe's sample value is hidden here by name, but not
      // learned: the sample value is public text (docs/checks.md), and the piece, searched for, would
      // be masked inside the probe's request as sent. A configured secret is learned whatever it is.
      // Nor a piece of the scope's generated request (pieceOfOwn).
      for (const v of r.values) if (!pieceOfSample(v) && !this.pieceOfOwn(v)) this.remember(v, r.kind);
      const mark = marker(r.kind, r.shape);
      out.push([r.start, r.end, r.spelling === 'json' ? JSON.stringify(mark) : r.spelling === 'url' ? encodeURIComponent(mark) : mark]);
    }
    return out;
  }

  /** learn() of a request URL, skipped for one in which it found nothing before. */
  private learnUrl(url: string): void {
    const { plainUrls } = this.shared;
    if (plainUrls.has(url)) return;
    // What learn(url) walks: the whole URL, unless it passes the limits (then nothing).
    const found = jsonLimitPassed(url) ? [] : this.sensitiveRanges(url);
    if (found.length) { this.structure(url, found); return; }
    if (url.length > FINGERPRINTED_LENGTH) return;
    if (plainUrls.size >= FINGERPRINTED_MAX) plainUrls.clear();
    plainUrls.add(detachedCopy(url));
  }

  /** Learns the sensitive values in a body so the later layers find them anywhere else. A body past
   *  the body limits is walked only as far as an output may show it (`shown` characters); what that
   *  part holds past the limits is withheld whole wherever it is shown (text()). */
  learn(body: string, shown = Infinity): void {
    if (!jsonLimitPassed(body)) { this.structure(body); return; }
    // Measured again only when cut: a body of megabytes within the limits is measured once.
    const part = body.slice(0, shown);
    if (part.length < body.length && !jsonLimitPassed(part)) this.structure(part);
  }

  /** Layers 2 and 3 over any text, with layer 1's ranges (`ranges`): every known spelling of every
   *  known secret, and every token whose fingerprint was learned, replaced by its marker; never inside
   *  a marker already there. */
  private scan(text: string, ranges: Range[] = []): string {
    if (text.length > MAX_SCANNED_TEXT) return this.head(text, ' ');
    const { global, fingerprints } = this.shared;
    const tables = this.local === global ? [global] : [global, this.local];
    // An e-mail address is personal data wherever it turns up (an error message, a stack trace, a
    // plain-text answer), learned or not: its shape says what it is.
    if (!this.shared.policy.showPersonalData && text.includes('@')) for (const m of emailMatches(text)) ranges.push([m.index, m.index + m[0].length, marker('personal', m[0])]);
    // A JSON text's tokens, read once and only when a range needs them (a shape to keep).
    let json: JsonTokens | undefined | null = null;
    const jsonOf = (): JsonTokens | undefined => (json === null ? (json = jsonTokens(text)) : json);
    if (!(tables.every((t) => t.empty) && fingerprints.size === 0)) this.secretRanges(text, tables, ranges, jsonOf);
    const masks = markersIn(text);
    const kept = masks.length ? ranges.filter((r) => !inside(masks, r)) : ranges;
    // A JSON-spelled range (a member named as sensitive, json-ranges.ts) stands for a whole value already.
    const tokens = kept.some((r) => !r[2].startsWith('"')) ? jsonOf() : undefined;
    return replaceRanges(text, tokens ? fitted(text, tokens, kept) : kept, (start, end, longest) => joinedMarker(text, start, end, longest));
  }

  /** `jsonOf`: the text's JSON tokens, when it is JSON (two words of one value are in one string). */
  private secretRanges(text: string, tables: readonly SecretTable[], ranges: Range[], jsonOf: () => JsonTokens | undefined): void {
    const { fingerprints } = this.shared;
    const c = canonical(text);
    // A form or a URL query (URLSearchParams, HTML forms) writes a space as "+": read so as well, where
    // there is one ("Jane+Doe" is "Jane Doe"), for what a space changes (a value of several words, a
    // short one that stands whole); the tokens joined by "+" are looked up below.
    const plus = c.text.includes('+') ? { ...c, text: c.text.split('+').join(' ') } : undefined;
    // Quoted-printable (a mail, a MIME part: =2D, soft line breaks) read apart, only where the text shows it.
    const qp = quotedPrintable(c, text);
    // \xHH, \u{H}, CSS escapes (\73 ) and full-width forms read apart, only where the text shows them.
    const escaped = escapedReading(c);
    // A number written in groups, read as one (digitGroupsReading): a phone number or postal code learned compact.
    const digits = digitGroupsReading(c);
    let folded: string | undefined; // the text only case-folded: for secrets that contain \ & or %
    let compact: ReturnType<typeof withoutWhitespace> | undefined; // the reading without whitespace: for base64 broken into lines or groups
    // What a reader reads as one value although it is written in pieces: JSON strings joined, XML
    // character data without CDATA delimiters and comments. Long secrets only.
    let views: Array<{ c: ReturnType<typeof canonical>; at: Uint32Array }> | undefined;
    const joinedReadings = () => [...joinedStrings(text), xmlReading(text)].flatMap((v) => (v ? [{ c: canonical(v.text), at: v.at }] : []));
    // No reading is longer than twice the text (the readings decode escapes: none grows a text).
    const longest = 2 * Math.max(text.length, c.text.length);
    for (const whole of tables) {
      const table = whole.within(longest);
      for (const [needle, s] of table.spelled) {
        const readings = plus && (s.whole || needle.includes(' ')) ? [c, plus] : [c];
        if (qp) readings.push(qp);
        if (escaped) readings.push(escaped);
        if (digits) readings.push(digits);
        for (const r of readings) for (const i of occurrences(r.text, needle)) if (!s.whole || standsWhole(r.text, i, needle.length)) ranges.push([r.from[i]!, r.to[i + needle.length - 1]!, s.marker]);
        if (s.folds) {
          folded ??= foldedText(text); // at the text's places
          for (const i of occurrences(folded, needle)) if (!s.whole || standsWhole(folded, i, needle.length)) ranges.push([i, i + needle.length, s.marker]);
        }
        if (s.whole) continue;
        views ??= joinedReadings();
        for (const v of views) for (const i of occurrences(v.c.text, needle)) ranges.push(...pieces(v, i, needle.length, s.marker));
      }
      if (table.base64.size) {
        // Read as the reader reads it (escapes decoded: \/, \u002b, %2B, an escaped line break), letter
        // case folded as the spellings are (SecretTable).
        compact ??= withoutWhitespace(c.text);
        const { text: packed, at } = compact;
        for (const [spelling, mark] of table.base64) for (const i of occurrences(packed, spelling)) ranges.push([c.from[at[i]!]!, c.to[at[i + spelling.length - 1]!]!, mark]);
      }
    }
    // A value quoted cut (a message's "abc…"): a known secret's first characters before the mark.
    if (CUT_MARK.test(c.text)) this.cutPrefixRanges(text, c, tables, ranges);
    if (fingerprints.size) {
      this.learnedTokenRanges(c, plus, jsonOf, ranges);
      if (qp) this.learnedTokenRanges(qp, undefined, jsonOf, ranges);
      if (escaped) this.learnedTokenRanges(escaped, undefined, jsonOf, ranges);
      if (digits) this.learnedTokenRanges(digits, undefined, jsonOf, ranges);
      // A learned token written in pieces a reader reads as one (two JSON strings, two CDATA sections,
      // split by an XML comment), as a spelled secret is (above): each piece masked with its marker.
      for (const v of (views ??= joinedReadings())) {
        for (const m of tokenMatches(v.c.text)) {
          const token = trimmed(m[0]);
          if (token.length < MIN_SCANNED || !learnedToken(fingerprints, token)) continue;
          ranges.push(...pieces(v, m.index + m[0].indexOf(token), token.length, `«secret: ${codePointCount(token)} chars»`));
        }
      }
      // A learned secret echoed in base64 or base64url (a Basic credential, a token, a JSON document
      // holding one): each run of the alphabet decoded whole, or else each of its path segments, and
      // masked when its text holds a learned token (learnedText).
      const at = (from: number, to: number, length: number): Range => {
        const [a, b] = [c.from[from]!, c.to[to - 1]!];
        // A spelling of a secret this scope knows (its base64, searched above) keeps that secret's marker.
        return [a, b, ranges.find((r) => r[0] < b && a < r[1] && KIND_MARKER.test(r[2]))?.[2] ?? `«secret: ${length} chars»`];
      };
      for (const m of c.text.matchAll(BASE64_RUN)) {
        const run = casedRun(text, c, m.index, m[0].length);
        if (run === undefined) continue;
        // Runs a dash or an underscore joins (both in base64url's alphabet, so read as one): the ones
        // that hold a learned token, when what is left out holds none. A secret's own base64url has
        // them too (its 62s and 63s): each widened over the pieces that decode with it to such text.
        const learnedPiece = (piece: string): boolean => learnedBase64(fingerprints, piece);
        const apart = /[-_]/.test(run) ? joinedRuns(run, learnedPiece).map(([a, b]) => widenedRun(run, a, b, learnedPiece)) : [];
        const whole = base64Text(run, MAX_BASE64_DECODED);
        // Text between bytes that are no UTF-8 (a serialized session): its long tokens only, whole.
        const lossy = whole === undefined ? base64Text(run, MAX_BASE64_DECODED, true) : undefined;
        if ((whole !== undefined && learnedText(fingerprints, whole)) || learnedStem(fingerprints, run) || learnedUtf16(fingerprints, run) || (lossy !== undefined && (learnedLongToken(fingerprints, lossy) || learnedTextGroups(fingerprints, run)))
          || laterWindowLearned(fingerprints, run, 'base64')) {
          if (apart.length && !outsideLearned(fingerprints, run, apart)) for (const [a, b] of apart) ranges.push(at(m.index + a, m.index + b, b - a));
          else ranges.push(at(m.index, m.index + run.length, run.length));
          continue;
        }
        for (const [a, b] of apart) ranges.push(at(m.index + a, m.index + b, b - a));
        if (whole !== undefined || !run.includes('/')) continue;
        for (const s of run.matchAll(BASE64_SEGMENT)) {
          const decoded = base64Text(s[0], MAX_BASE64_DECODED);
          if ((decoded !== undefined && learnedText(fingerprints, decoded)) || learnedStem(fingerprints, s[0])) ranges.push(at(m.index + s.index, m.index + s.index + s[0].length, s[0].length));
        }
      }
      // Base64 broken into lines (MIME's 76 characters, PEM's 64), read as one: a secret may straddle a break.
      for (const m of c.text.matchAll(BASE64_LINES)) {
        const run = casedRun(text, c, m.index, m[0].length);
        const joined = run?.replace(/\s+/g, '');
        if (joined === undefined || joined.length < MIN_BASE64) continue;
        const decoded = base64Text(joined, MAX_BASE64_DECODED);
        if ((decoded !== undefined && learnedText(fingerprints, decoded)) || learnedUtf16(fingerprints, joined) || laterWindowLearned(fingerprints, joined, 'base64 lines')) ranges.push(at(m.index, m.index + m[0].length, joined.length));
      }
      // Base64 in groups of four with spaces between, read as one: text only (four-letter words in a row
      // look alike). The run less a few groups at either end too: words of four letters around it
      // ("echoed <groups> back") are read as groups.
      for (const m of c.text.matchAll(BASE64_GROUPS)) {
        const groups = groupsOf(m, /[^ \t]+/g);
        const last = groups.length - 1;
        // Every group is four characters but the last: written as read (no escape in it), a window of
        // groups is a slice of the run joined once, not joined again at each of the many reads below.
        const from0 = groups[0]![0];
        const asRead = c.to[groups[last]![1] - 1]! - c.from[from0]! === groups[last]![1] - from0;
        const all = asRead ? text.slice(c.from[from0]!, c.to[groups[last]![1] - 1]!).replace(/[ \t]/g, '') : undefined;
        const joinedOf = (first: number, end: number): string | undefined => all !== undefined
          ? all.slice(4 * first, 4 * end + groups[end]![1] - groups[end]![0])
          : casedRun(text, c, groups[first]![0], groups[end]![1] - groups[first]![0])?.replace(/[ \t]/g, '');
        // Whether groups[first..last] decode to text holding a learned token; `lossy`: to bytes that do, text or not.
        const holds = (first: number, last: number, lossy = false): boolean => {
          // Groups past what is decoded change nothing (four characters each, but the last).
          const joined = joinedOf(first, Math.min(last, first + DECODED_GROUPS));
          if (joined === undefined) return false;
          groupCharactersDecoded += joined.length;
          // A last group of one character: a value's stable spelling (learnedStem) only where the
          // groups before it hold nothing learned, else a word after them (echoed <groups> a).
          if (joined.length % 4 === 1) return last > first && !holds(first, last - 1, lossy) && learnedStem(fingerprints, joined);
          const decoded = base64Text(joined, MAX_BASE64_DECODED, lossy);
          return (decoded !== undefined && (lossy || readsAsText(decoded)) && learnedText(fingerprints, decoded)) || learnedUtf16(fingerprints, joined);
        };
        // Whether any groups from `first` to `end` hold one, read lossily window by window (each
        // DECODED_GROUPS, half a window after the one before): one read where they fit in a window.
        const anyHolds = (first: number, end: number): boolean => {
          for (let s = first; ; s += DECODED_GROUPS / 2) {
            if (holds(s, end, true)) return true;
            if (s + DECODED_GROUPS >= end) return false;
          }
        };
        let ofText: ((g: number) => boolean) | undefined;
        // Runs of groups side by side, of bytes that are no text (a hash's) and a secret's: groups of
        // four decode each to their own three bytes, so the whole, read lossily, holds the secret's
        // text. Then the fewest groups of `from..to` (which hold one) that do, trimmed at both ends (the
        // last start from which the groups to `to` hold it, then the first end), widened over the
        // groups beside them of text (the rest of the secret's: its other words, its padding), what is
        // left out on either side holding nothing learned (the hashes stay as sent); else all of them.
        // (Two texts side by side read as one: masked as one, above.) Past BISECTED_GROUPS groups, each
        // end is found by halving: one group at a time, a run of 80 000 groups took 17 s to read. (Any
        // groups found hold the secret, and the rest is read for others: halving never shows one.)
        const fewest = (from: number, to: number): [number, number] => {
          let first = to;
          let end: number;
          if (to - from <= BISECTED_GROUPS) {
            while (!holds(first, to, true)) first--;
            end = first;
            while (!holds(first, end, true)) end++;
          } else {
            // holds(low, to), and not holds(high, to) (past `to`, none); then holds(first, end), not holds(first, low).
            let [low, high] = [from, to + 1];
            while (high - low > 1) { const mid = (low + high) >>> 1; if (holds(mid, to, true)) low = mid; else high = mid; }
            first = low;
            [low, end] = [first - 1, to];
            while (end - low > 1) { const mid = (low + end) >>> 1; if (holds(first, mid, true)) end = mid; else low = mid; }
          }
          ofText ??= textGroups(joinedOf(0, last)!);
          while (first > 0 && ofText(first - 1)) first--;
          while (end < last && ofText(end + 1)) end++;
          return (first > 0 && anyHolds(0, first - 1)) || (end < last && anyHolds(end + 1, last)) ? [0, last] : [first, end];
        };
        // A secret's groups a hash's group of a letter fuses to it (textGroupRuns): each run of groups
        // of text in groups[from..to] starting at `after` or later (one an earlier window holds was read
        // there), less a few at either end, read alone; the fewest groups masked, as above.
        const textRunsIn = (from: number, to: number, found: Array<[number, number]>, after = from): void => {
          const joined = joinedOf(from, to);
          for (const [s, e] of joined === undefined ? [] : textGroupRuns(joined)) {
            if ((from + s === 0 && from + e === last) || from + s < after) continue; // read whole above, or read before
            groupWindows(e - s + 1, (first, end) => {
              const window: [number, number] = [from + s + first, from + s + end];
              if (holds(...window)) found.push(window);
              return found[found.length - 1] === window;
            });
          }
        };
        let hit: [number, number] | undefined;
        groupWindows(groups.length, (first, last) => { if (holds(first, last)) hit = [first, last]; return hit !== undefined; });
        if (hit === undefined && last > 1 && holds(0, last, true)) hit = fewest(0, Math.min(last, DECODED_GROUPS));
        const found: Array<[number, number]> = hit === undefined ? [] : [hit];
        if (hit === undefined && last > 1) {
          textRunsIn(0, Math.min(last, DECODED_GROUPS), found);
          // Past the groups read so far, the rest in windows of as many, each half a window after the
          // one before: a secret deep in a long run of groups (it had been shown as sent).
          for (let s = DECODED_GROUPS / 2; s + DECODED_GROUPS / 2 < last; s += DECODED_GROUPS / 2) {
            const end = Math.min(last, s + DECODED_GROUPS);
            if (holds(s, end, true)) { found.push(fewest(s, end)); break; }
            textRunsIn(s, end, found, s + DECODED_GROUPS / 2);
          }
        }
        for (const [first, end] of found) ranges.push(at(groups[first]![0], groups[end]![1], joinedOf(first, end)!.length));
      }
      // Base32 in capitals, as encoders write it, decoding to text that holds a learned token; in lower
      // case (a long word may be base32 by chance) only where it is all one case, long enough to hold a
      // long token, and decodes to a learned token exactly.
      for (const m of c.text.matchAll(BASE32_RUN)) {
        const run = casedRun(text, c, m.index, m[0].length);
        if (run === undefined) continue;
        const lower = /[a-z]/.test(run);
        if (lower && (/[A-Z]/.test(run) || run.replace(/=+$/, '').length < MIN_BASE32_LOWER)) continue;
        const decoded = base32Text(m[0], MAX_BASE64_DECODED);
        if (decoded === undefined) continue;
        // Capitals past the first window read in windows too (a run in lower case is one token exactly).
        const learned = readsAsText(decoded) ? (lower ? exactlyLearned(fingerprints, decoded) : learnedText(fingerprints, decoded)) : false;
        if (learned || (!lower && laterWindowLearned(fingerprints, m[0], 'base32'))) ranges.push(at(m.index, m.index + m[0].length, m[0].length));
      }
      // Base32 written in groups (a key shown for reading: MFRG GZDF MZTW, or dashed), read as one,
      // groups of one length but the last, less a few groups at either end (as base64's); in lower
      // case, as a run in lower case, only where it decodes to a learned token exactly.
      for (const m of c.text.matchAll(BASE32_GROUPS)) {
        const groups = groupsOf(m, /[^ \t-]+/g);
        const cased = groups.map(([a, b]) => casedRun(text, c, a, b - a));
        for (const [s, e] of groupRuns(c.text, groups, cased)) {
          const run = groups.slice(s, e);
          let found = false;
          groupWindows(run.length, (first, last) => {
            if (!evenGroups(run, first, last)) return false;
            // Past what is decoded, the window's end changes nothing: its groups are not joined.
            let joined = '';
            for (let g = s + first; g <= s + last && joined.length <= MAX_BASE64_DECODED; g++) {
              const group = cased[g];
              if (group === undefined) return false;
              joined += group;
            }
            const small = /[a-z]/.test(joined);
            if (small && joined.replace(/=+$/, '').length < MIN_BASE32_LOWER) return false;
            const decoded = base32Text(joined.toLowerCase(), MAX_BASE64_DECODED);
            if (decoded === undefined || !readsAsText(decoded) || !(small ? exactlyLearned(fingerprints, decoded) : learnedText(fingerprints, decoded))) return false;
            ranges.push(at(run[first]![0], run[last]![1], joined.length));
            return (found = true);
          });
          // Capitals past the first window, in windows (as a run of them): the run masked whole.
          const whole = found || !evenGroups(run, 0, run.length - 1) ? undefined : cased.slice(s, e);
          if (whole === undefined || whole.some((g) => g === undefined || /[a-z]/.test(g))) continue;
          const joined = whole.join('');
          if (laterWindowLearned(fingerprints, joined.toLowerCase(), 'base32')) ranges.push(at(run[0]![0], run[run.length - 1]![1], joined.length));
        }
      }
      // Hex written byte by byte (a dump): long learned tokens only, as in a hex token (learnedToken).
      for (const m of c.text.matchAll(HEX_BYTES)) {
        const bytes = Buffer.from(m[0].slice(0, 3 * MAX_BASE64_DECODED).replace(HEX_SEPARATOR, ''), 'hex');
        if (learnedHexBytes(fingerprints, bytes) || laterWindowLearned(fingerprints, m[0], 'hex dump')) ranges.push(at(m.index, m.index + m[0].length, m[0].length));
      }
      // Hex of text in one run (a document hex-encoded): long learned tokens inside it, as in a dump.
      // (A token that is the hex of a learned token exactly is one already: learnedToken.)
      for (const m of c.text.matchAll(HEX_RUN)) {
        const bytes = Buffer.from(m[0].slice(0, 2 * MAX_BASE64_DECODED), 'hex');
        if (learnedHexBytes(fingerprints, bytes) || laterWindowLearned(fingerprints, m[0], 'hex')) ranges.push(at(m.index, m.index + m[0].length, m[0].length));
      }
    }
  }

  /**
   * The first characters of a known secret that end at a cut mark (… or ...), wherever they stand: a
   * value a message quotes cut, or a text cut before the harness saw it, whose rest is not shown.
   * MIN_SCANNED characters or more, as read. A spelled secret (configured, a header's, this scope's)
   * by its spellings; a learned token, of which only fingerprints are kept, by this scope's exchange
   * or another alive scope's (a token known by fingerprint only, held by no scope's exchange, is not
   * found): where the word cut there stands in it whole, the whole word is looked up (and with the word after
   * it, or the one before, as two words of one value). Output work only, and only where a mark is.
   */
  private cutPrefixRanges(text: string, c: CanonicalText, tables: readonly SecretTable[], ranges: Range[]): void {
    const t = c.text;
    // What the readings of the last end found, with that end as written: a run of marks (a body of
    // dots) has the same end before each of its marks, read once (read at each, 100 000 dots took 13 s).
    let lastEnd: { readonly written: string; readonly starts: readonly (readonly [number, string])[] } | undefined;
    // Where the mark before ended: the word before a mark starts after it (dots are a token's
    // characters, so in ab..ab..ab.. each mark's word had reached back over every mark before it, a
    // thousand characters looked up as a token at each: 5 s for 200 000 characters).
    let floor = 0;
    const marks = [...t.matchAll(CUT_MARKS)];
    for (let n = 0; n < marks.length; n++) {
      const m = marks[n]!;
      const i = markStart(t, m.index, floor);
      const start = this.cutSecretStart(t, i, tables, floor);
      floor = m.index + m[0].length;
      if (start >= 0) ranges.push([c.from[start]!, c.to[i - 1]!, `«secret: ${codePointCount(t.slice(start, i))} chars»`]);
      // The last characters of a spelled secret after the mark (******Lm2X…, head…tail).
      const after = m.index + m[0].length;
      // Up to the next mark at most (a run of marks is read in time linear in it).
      const end = cutSecretEnd(t, after, Math.min(marks[n + 1]?.index ?? t.length, after + MAX_PREFIX_CHECKED), tables);
      if (end > after) ranges.push([c.from[after]!, c.to[end - 1]!, `«secret: ${codePointCount(t.slice(after, end))} chars»`]);
      // The end before the mark read as cut() reads a cut text's end (endReadings): a secret written
      // in hex, base32, base64 or escapes, cut there. Read also less what the mark cut of one unit
      // (an escape's start, half a byte), with dashes between groups read as spaces, and from each of
      // the last groups (a word before them may decode as their start).
      const mark = c.from[i]!;
      const from = Math.max(0, mark - CUT_READ);
      const written = text.slice(from, mark);
      let starts = lastEnd?.written === written ? lastEnd.starts : undefined;
      if (starts === undefined) {
        const found: (readonly [number, string])[] = [];
        for (const [off, w, first] of cutEndVariants(written)) {
          endReadings(w, true).forEach((r, k) => {
            if (k < first || !r?.text.length) return;
            let s = this.cutSecretStart(r.text, r.text.length, tables);
            // An encoded run holding a learned token (as the scan reads a whole one), or whose whole an
            // alive scope's exchange holds, masked there; of escapes, the last word they spell.
            const run = k >= ENCODED_READINGS ? 0 : lastWordStart(r.text);
            if (s < 0 && k >= ENCODED_READINGS && this.shared.fingerprints.size && learnedText(this.shared.fingerprints, r.text)) s = 0;
            if (s < 0 && k > 0 && run < r.text.length && w.length - r.from[run]! >= MIN_BASE64 && this.cutRunHidden(written.slice(off + r.from[run]!))) s = run;
            if (s >= 0) found.push([off + r.from[s]!, `«secret: ${codePointCount(written.slice(off + r.from[s]!))} chars»`]);
          });
        }
        lastEnd = { written, starts: (starts = found) };
      }
      for (const [at, shown] of starts) ranges.push([from + at, mark, shown]);
    }
  }

  /** Where the first characters of a known secret that end at `i` of canonical reading `t` start
   *  (cutPrefixRanges), or -1: MIN_SCANNED characters or more of a spelled one, or a word a learned
   *  one starts with (cutWordLearned). */
  private cutSecretStart(t: string, i: number, tables: readonly SecretTable[], floor = 0): number {
    let found = -1;
    const at = (k: number): void => { found = found < 0 ? k : Math.min(found, k); };
    for (const whole of tables) {
      // A spelling ends at i at most: a longer one is neither whole there nor a prefix checked.
      for (const [needle, s] of whole.within(i).spelled) {
        if (headerWhole(needle, s)) continue;
        // Whole too: a decoded run (its padding cut) the scan did not read as the secret.
        const k = i - floor >= needle.length && t.startsWith(needle, i - needle.length) ? needle.length : prefixBefore(t, i, needle, floor);
        if (k >= MIN_SCANNED && (!s.whole || startsWhole(t, i - k)) && !harnessWord(t.slice(i - k, i).trim())) at(i - k);
      }
    }
    if (this.shared.fingerprints.size === 0) return found;
    // The word before the mark (a space between them too), its leading . @ : - left out; and the
    // word before that, a space between them.
    const end = spacesBefore(t, i);
    let start = wordBefore(t, end, floor);
    while (start < end && asciiTrimmed(t.charCodeAt(start))) start++;
    if (end - start < MIN_SCANNED) return found;
    const space = spacesBefore(t, start);
    const before = space < start && space > floor ? trimmed(t.slice(wordBefore(t, space, floor), space)) : '';
    const word = t.slice(start, end);
    const cut = learnedToken(this.shared.fingerprints, word) ? 0 : this.cutWordLearned(word, before);
    if (cut !== undefined) at(start + cut);
    return found;
  }

  /** Whether `run`, an encoded run a cut mark ends (as written), stands in the texts of this scope's
   *  exchange or another alive scope's (as written, or inside a JSON string) in a longer run of
   *  the encoding's characters that the scan masks there, where `run` stands. */
  private cutRunHidden(run: string): boolean {
    const memo = (this.cutRuns ??= new Map());
    if (!memo.has(run)) memo.set(run, this.cutRunLookup(run) || this.cutElsewhere((scope) => scope.cutRunLookup(run) || undefined) === true);
    return memo.get(run)!;
  }

  /** cutRunHidden by this scope's exchange alone. */
  private cutRunLookup(run: string): boolean {
    if (this.exchange === undefined) return false;
    const tables = this.tables;
    const escaped = JSON.stringify(run).slice(1, -1);
    for (const text of exchangeTexts(this.exchange)) {
      for (const needle of escaped === run ? [run] : [run, escaped]) {
        for (let p = text.indexOf(needle), n = 0; p >= 0 && n < MAX_RUN_PLACES; p = text.indexOf(needle, p + 1), n++) {
          let [q, e] = [p, p + needle.length];
          while (q > Math.max(0, p - CUT_READ) && ENCODED_CHAR.test(text[q - 1]!)) q--;
          while (e < Math.min(text.length, p + needle.length + CUT_READ) && ENCODED_CHAR.test(text[e]!)) e++;
          const piece = text.slice(q, e);
          const found: Range[] = [];
          this.secretRanges(piece, tables, found, () => undefined);
          if (found.some(([a, b]) => a < p - q + needle.length && b > p - q)) return true;
        }
      }
    }
    return false;
  }

  /** Where a learned secret starts in `word`, a canonical word a cut mark ends, by this scope's
   *  exchange, else by another alive scope's (cutScopes): a word of it that `word` begins (cutWords)
   *  is a learned token longer than `word` (or holds one from inside `word`, joined or fused to it),
   *  or the first of two learned words in a row, or the second after `before`. Undefined when none is. */
  private cutWordLearned(word: string, before: string): number | undefined {
    const key = `${before} ${word}`;
    const memo = (this.cutLearned ??= new Map());
    if (!memo.has(key)) memo.set(key, this.cutWordLookup(word, before) ?? this.cutElsewhere((scope) => scope.cutWordLookup(word, before)));
    return memo.get(key);
  }

  /** A lookup by the exchanges the other alive scopes learned: the first answer given. */
  private cutElsewhere<T>(lookup: (scope: Redactor) => T | undefined): T | undefined {
    for (const ref of this.shared.cutScopes.refs) {
      const scope = ref.deref();
      const at = scope === undefined || scope === this ? undefined : lookup(scope);
      if (at !== undefined) return at;
    }
    return undefined;
  }

  /** This scope in cutScopes, the dead ones dropped first when the list is long. */
  private listCutScope(): void {
    const list = this.shared.cutScopes;
    if (list.refs.length >= list.limit) {
      list.refs = list.refs.filter((ref) => ref.deref() !== undefined);
      list.limit = Math.max(MIN_CUT_SCOPES, 2 * list.refs.length);
    }
    list.refs.push(new WeakRef(this));
  }

  /** cutWordLearned by this scope's exchange alone (none: undefined). */
  private cutWordLookup(word: string, before: string): number | undefined {
    if (this.exchange === undefined) return undefined;
    const { fingerprints } = this.shared;
    const words = (this.exchangeWords ??= cutWords(this.exchange));
    // The entries that begin with `word`: sorted, they stand together from its place.
    let lo = 0;
    let hi = words.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (words[mid]! < word) lo = mid + 1; else hi = mid; }
    for (let k = lo; k < words.length && words[k]!.startsWith(word); k++) {
      const space = words[k]!.indexOf(' ');
      const whole = space < 0 ? words[k]! : words[k]!.slice(0, space);
      if (whole.length > word.length && learnedToken(fingerprints, whole)) return 0;
      if (whole.length > MIN_PART) for (const [a, b] of learnedParts(fingerprints, whole)) if (b > word.length && word.length - a >= MIN_SCANNED) return a;
      if (space >= 0 && fingerprints.has(words[k]!)) return 0;
      if (before && fingerprints.has(pair(before, whole))) return 0;
    }
    return undefined;
  }

  /** Every token of a reading (`r`: the canonical text, or its quoted-printable reading) whose
   *  fingerprint was learned, and every two words of one value in a row, as ranges of the text. */
  private learnedTokenRanges(r: CanonicalText, plus: CanonicalText | undefined, jsonOf: () => JsonTokens | undefined, ranges: Range[]): void {
    const { fingerprints } = this.shared;
    let previous: { word: string; from: number; end: number } | undefined;
    const look = (raw: string, at: number): void => {
      // The token less its leading and trailing . @ : - (trimmed), by codes: this runs per word of every text shown.
      let lead = 0;
      let end = raw.length;
      while (lead < end && asciiTrimmed(raw.charCodeAt(lead))) lead++;
      while (end > lead && asciiTrimmed(raw.charCodeAt(end - 1))) end--;
      if (lead === end) return;
      const token = end - lead === raw.length ? raw : raw.slice(lead, end);
      const from = at + lead;
      const to = r.to[from + token.length - 1]!;
      if (token.length >= MIN_SCANNED && learnedToken(fingerprints, token)) ranges.push([r.from[from]!, to, `«secret: ${codePointCount(token)} chars»`]);
      // A learned token joined to other words (bob@token, token.txt, id-token) or fused to letters (xxtokenyy).
      else if (token.length > MIN_PART) for (const [a, b] of learnedParts(fingerprints, token)) ranges.push([r.from[from + a]!, r.to[from + b - 1]!, `«secret: ${codePointCount(token.slice(a, b))} chars»`]);
      // Two words of one value joined by a dot, an underscore or a dash (anna.maria.nowak): every two
      // parts in a row, as two words a space apart are.
      if (token.length > MIN_SCANNED && WORD_JOINS.test(token)) for (const [a, b] of joinedWordPairs(fingerprints, token)) ranges.push([r.from[from + a]!, r.to[from + b - 1]!, '«secret: words»']);
      // Two words of one value: not two values (a member's name and its value, two strings, two elements).
      if (previous && !boundaryBetween(r.text, previous.end, from) && fingerprints.has(pair(previous.word, token)) && !apart(jsonOf(), r.from[previous.from]!, to)) ranges.push([r.from[previous.from]!, to, '«secret: words»']);
      previous = { word: token, from, end: from + token.length };
    };
    // A long token written in pieces a wrap splits (a line break, a tab, one space; a dash inside one
    // token): the pieces in a row, joined, looked up as one.
    const pieces: { raw: string; at: number; gap: 0 | 1 | 2 }[] = [];
    let piecesEnd = -1;
    /** Pieces from `first` on, joined (`joined`): their range less what trimmed() leaves out at its
     *  ends, if that is a learned token; none when it leaves out a whole end piece (a shorter join's). */
    const learnedJoin = (first: { raw: string; at: number }, last: { raw: string }, joined: string): void => {
      const word = trimmed(joined);
      if (word.length < MIN_PART || !fingerprints.has(word)) return;
      const lead = joined.indexOf(word);
      const tail = joined.length - lead - word.length;
      if (lead >= first.raw.length || tail >= last.raw.length) return;
      ranges.push([r.from[first.at + lead]!, r.to[piecesEnd - tail - 1]!, `«secret: ${codePointCount(word)} chars»`]);
    };
    const wrapped = (raw: string, at: number): void => {
      const word = raw.includes('-') ? trimmed(raw) : '';
      if (word.includes('-')) {
        const joined = word.replace(/-/g, '');
        const from = at + raw.indexOf(word);
        // Not where the token as written is learned whole (a date, 1990-04-12, learned also as a number in groups): its own marker says what it is.
        if (joined.length >= MIN_PART && fingerprints.has(joined) && !fingerprints.has(word)) ranges.push([r.from[from]!, r.to[from + word.length - 1]!, `«secret: ${codePointCount(joined)} chars»`]);
      }
      const gap = pieces.length ? wrapGap(r.text, piecesEnd, at) : 0;
      // Line breaks and tabs wrap a token in many pieces; one space splits it once: prose is words a
      // space apart, each joined to the one before alone.
      if (gap === 0) pieces.length = 0;
      else if (gap === 1 || pieces[pieces.length - 1]!.gap === 1) pieces.splice(0, pieces.length - 1);
      else if (pieces.length === MAX_WRAPPED_PIECES) pieces.shift();
      pieces.push({ raw, at, gap });
      piecesEnd = at + raw.length;
      let joined = raw;
      for (let k = pieces.length - 2; k >= 0; k--) {
        joined = pieces[k]!.raw + joined;
        if (joined.length > MAX_WRAPPED_LENGTH) break;
        learnedJoin(pieces[k]!, pieces[pieces.length - 1]!, joined);
      }
    };
    for (const m of tokenMatches(r.text)) {
      const before = previous;
      wrapped(m[0], m.index);
      look(m[0], m.index);
      // Words a "+" joins (a form's spaces), each looked up too, and every two in a row.
      if (plus && m[0].includes('+')) {
        const joined = previous;
        previous = before;
        for (const w of tokenMatches(plus.text.slice(m.index, m.index + m[0].length))) look(w[0], m.index + w.index);
        previous = joined;
      }
      // Parts a colon joins (user:password, key:value), each looked up alone: the whole token is none learned.
      if (m[0].includes(':')) {
        const joined = previous;
        let at = 0;
        for (const part of m[0].split(':')) {
          if (part.length >= MIN_SCANNED) { previous = undefined; look(part, m.index + at); }
          at += part.length + 1;
        }
        previous = joined;
      }
    }
  }

  /** A body or any other text: structure first, then every learned secret. A text past the body
   *  limits cannot be walked safely, so it is withheld whole: nothing in it can leak. */
  text(text: string): string {
    if (text.length > MAX_REDACTED_TEXT) return this.head(text, ' ');
    const passed = jsonLimitPassed(text);
    if (passed) return `«withheld: ${text.length} characters; the text ${limitMessage(passed)}»`;
    return this.scan(text, this.structure(text));
  }

  /** A text's first MAX_SHOWN_TEXT characters, only its first REDACTED_WINDOW redacted and cut as the
   *  head of an answer kept cut is (cut's `head`), then `separator` and how long it is: a text too long
   *  to redact whole (a client's body of 4 MiB, redacted whole, took the proxy's report to 760 MB). */
  head(text: string, separator: string): string {
    return `${this.cut(text.slice(0, this.windowEnd(text)), MAX_SHOWN_TEXT, true).text}${separator}… (${text.length} characters; the rest not shown)`;
  }

  /** The secret tables this scope reads: the run's, and its own when it has one. */
  private get tables(): SecretTable[] {
    return this.local === this.shared.global ? [this.shared.global] : [this.shared.global, this.local];
  }

  /** Where head() stops reading `text`: at REDACTED_WINDOW, or before a spelled secret longer than
   *  MAX_PREFIX_CHECKED that starts in that window and goes on past it (its first MAX_PREFIX_CHECKED
   *  characters, letters in either case). Such a secret is masked where it stands whole, and a cut's
   *  end is checked against shorter ones only: a configured value of 60 000 short words had its first
   *  256 Ki characters shown. */
  private windowEnd(text: string): number {
    let end = Math.min(text.length, REDACTED_WINDOW);
    let folded: string | undefined;
    const tables = this.tables;
    for (const t of tables) {
      for (const needle of t.longerThan(MAX_PREFIX_CHECKED)) {
        folded ??= foldedText(text.slice(0, end)); // at the text's places, folded as the needle is
        const start = needle.slice(0, MAX_PREFIX_CHECKED);
        for (let at = folded.indexOf(start); at >= 0 && at < end; at = folded.indexOf(start, at + 1)) {
          if (at + needle.length > end) { end = at; break; }
        }
      }
    }
    return end;
  }

  /**
   * A text shown `max` characters at most: redacted first, then cut, never inside a marker. When the
   * text is cut, here or before (`head`: it is only the first part of what was received), its last
   * word is left out (cut before, after a space: the word before it), and so is an end that begins a
   * known secret: they may be the first characters of a secret whose rest is not shown. `omitted`: characters of the redacted text not shown.
   */
  cut(text: string, max: number, head = false): { text: string; omitted: number } {
    const red = this.text(text);
    let end = red.length;
    if (end > max) {
      end = max;
      for (const [a, b] of markersIn(red)) if (a < end && end < b) { end = b; break; }
    }
    // Cut before the harness saw it, after a space: the word before may be the first of a value's words.
    if (head && end === red.length) end = beforeSpacedWord(red, end);
    if (end < red.length || head) end = this.safeEnd(red, end);
    return { text: red.slice(0, end), omitted: red.length - end };
  }

  /** Where a cut text may end: before its last word (unless that is a marker), and before any end of
   *  it that spells the start of a known secret; each again as the end is read decoded (escapes, a hex
   *  dump, base64 in pieces: safeEndOnce), until nothing more is left out. */
  private safeEnd(text: string, end: number): number {
    for (let pass = 0; pass < MAX_CUT_PASSES; pass++) {
      const next = this.safeEndOnce(text, end);
      if (next === end) break;
      end = next;
    }
    return end;
  }

  /** One pass of safeEnd: the last word as written; an escape the cut left open; then the end of the
   *  text read as a reader decodes it (canonical, escapes, full-width forms, a hex dump, base64 in
   *  groups or lines): its last word as read, and an end that spells the start of a known secret. A
   *  learned secret's first characters in any of those spellings are so left out, as in plain text. */
  private safeEndOnce(text: string, end: number): number {
    if (text[end - 1] !== '»') while (end > 0 && !CUT_AT.test(text[end - 1]!)) end--;
    const open = OPEN_ESCAPE.exec(text.slice(Math.max(0, end - 16), end));
    if (open) end -= open[0].length;
    const tables = this.tables;
    let longest = 0;
    for (const t of tables) for (const needle of t.spelled.keys()) if (needle.length <= MAX_PREFIX_CHECKED) longest = Math.max(longest, needle.length);
    const from = Math.max(0, end - Math.max(longest * 12, CUT_READ)); // the longest spelling of a character is 12 (&#x0010ffff;)
    const readings = endReadings(text.slice(from, end));
    let cut = end;
    for (const r of readings) {
      if (!r?.text.length) continue;
      // A word as read shorter than MIN_SCANNED shows too little of any secret to be one's start.
      const word = lastWordStart(r.text);
      if (word <= r.text.length - MIN_SCANNED) cut = Math.min(cut, from + r.from[word]!);
      for (const t of tables) {
        for (const needle of t.spelled.keys()) {
          if (needle.length > MAX_PREFIX_CHECKED) continue;
          for (let k = Math.min(needle.length - 1, r.text.length); k >= MIN_SCANNED; k--) {
            if (r.text.endsWith(needle.slice(0, k))) { cut = Math.min(cut, from + r.from[r.text.length - k]!); break; }
          }
        }
      }
    }
    return cut;
  }

  /** A header as shown, "name: value": the name is text a peer wrote like any other (a target may
   *  echo a client's key as a header name), searched as any text is; the value hidden when the
   *  header carries a secret. */
  headerField(name: string, value: string): string {
    return `${this.scan(name)}: ${this.header(name, value)}`;
  }

  /** A header value, hidden when the header carries a secret. */
  header(name: string, value: string): string {
    if (this.secretHeaderName(name)) return marker('secret header', value);
    return value.length > MAX_REDACTED_TEXT ? this.head(value, ' ') : this.scan(value);
  }

  /** A single received value of a member with the given sensitivity. */
  /** `typed`: the value as a JSON value of its type, when `value` is only its text (a marker then
   *  says «personal: null» or «…: number», not the length of the text). */
  /** A value the harness sent (isOwn) is shown as sent: only a value equal to one of the request's
   *  counts, never one that merely holds a piece of one. */
  value(value: string, kind: Sensitivity | undefined, typed: unknown = value): string {
    if (this.isOwn(value)) return this.shown([[value, true]]);
    return this.hides(kind) ? marker(kind, typed) : this.scan(value);
  }

  /** A finding's message (not the harness's own value), to be shown cut: line(), but each quoted value
   *  longer than REDACTED_WINDOW given as its redacted head (`head`), the words around it whole.
   *  Redacted whole, a finding quoting a method of 4 MiB took the run to 420 MB. */
  findingLine(message: string): string {
    if (message.length <= REDACTED_WINDOW) return this.line(message);
    const headed = replaceQuoted(message, (start, end) => (end - start > REDACTED_WINDOW ? `"${this.head(message.slice(start, end), '')}"` : undefined));
    return headed.length > REDACTED_WINDOW ? this.head(message, ' ') : this.scan(headed);
  }

  /** A value a finding names (not the harness's own), to be shown cut: value(), a value longer than
   *  REDACTED_WINDOW given as its redacted head. */
  findingValue(value: string, kind: Sensitivity | undefined): string {
    return value.length > REDACTED_WINDOW && !this.hides(kind) ? this.head(value, ' ') : this.value(value, kind);
  }

  /** A string that is not a body (a message, a path, a title): layers 2 and 3 only. An output this
   *  scope made with shown() is redacted again in its parts, its own ones left as they are. */
  line(value: string): string {
    const parts = this.shownParts.get(value);
    return parts ? parts.map(([t, own]) => (own ? t : this.scan(t))).join('') : this.scan(value);
  }
}

/** Whether text[from, to) holds what stands between two values, never inside one: a quote of JSON,
 *  markup, a structure's bracket (" < > { } [ ]; by codes, no slice per word). */
function boundaryBetween(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x22 || c === 0x3c || c === 0x3e || c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d) return true;
  }
  return false;
}
/** What joins the words of a value written as one token (anna.maria.nowak, Anna_Maria). */
const WORD_JOINS = /[._-]/;
/** The runs [start, end) of two parts in a row of `token` (split at WORD_JOINS) whose pair (two words
 *  of one value) was learned. */
function joinedWordPairs(fingerprints: FingerprintSet, token: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let [start, previous] = [0, ''];
  let previousStart = -1;
  for (let k = 0; k <= token.length; k++) {
    if (k < token.length && !WORD_JOINS.test(token[k]!)) continue;
    const part = token.slice(start, k);
    if (part && previous && previous.length + part.length >= MIN_SCANNED && fingerprints.has(pair(previous, part))) out.push([previousStart, k]);
    if (part) { [previous, previousStart] = [part, start]; } else previous = '';
    start = k + 1;
  }
  return out;
}
/** Pieces of a wrapped token joined at most, and characters of the token they make. */
const MAX_WRAPPED_PIECES = 8;
const MAX_WRAPPED_LENGTH = 128;
/** Whether text[from, to) is a wrap between two pieces of one token: 2 for a line break (CRLF too)
 *  with spaces or tabs around it, or a tab; 1 for one space; 0 for none (four characters at most). */
function wrapGap(text: string, from: number, to: number): 0 | 1 | 2 {
  if (to - from < 1 || to - from > 4) return 0;
  let breaks = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x0a || c === 0x0d || c === 0x09) breaks++;
    else if (c !== 0x20) return 0;
  }
  return breaks > 0 ? 2 : to - from === 1 ? 1 : 0;
}
/** A marker as a reader reads it, whatever its spelling (a JSON string, URL-encoded, plain). */
const markerRead = (mark: string): string => (mark.startsWith('"') ? JSON.parse(mark) as string : mark.startsWith('%') ? decodeURIComponent(mark) : mark);

/** Whether text[from, to) of a JSON text lies in two of its values (two numbers of an array, a
 *  number and a literal): no two words of one value. */
const apart = (json: JsonTokens | undefined, from: number, to: number): boolean => json !== undefined && tokenAt(json, from) !== tokenAt(json, to - 1);

/** A value's marker from what it was learned as (text: "«personal: string, 4 chars»"). */
const TEXT_MARKER = /^«([^:«»]+): string, \d+ chars»$/;
/** The marker of a learned text standing whole in a number's or a literal's place names what it
 *  replaced (2026 where a postal code "2026" was learned: «personal: number»), as layer 1's does. */
function retyped(mark: string, scalar: string): string {
  const kind = TEXT_MARKER.exec(mark)?.[1];
  return kind === undefined ? mark : marker(kind as Kind, scalar === 'true' || scalar === 'false' ? true : scalar === 'null' ? null : 0);
}

/** Ranges of a JSON text fitted to its values, so that the text keeps its shape: a range that stands
 *  for a whole value with a JSON marker (a member named as sensitive) as it is; any other in the
 *  pieces valuePieces gives, each marker spelled for its place (inside a string's quotes, or as a
 *  string in a number's place) and stating the length of what it hides there. */
function fitted(text: string, json: JsonTokens, ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  for (const r of ranges) {
    const [start, end, mark] = r;
    const k = tokenAt(json, start);
    if (mark.startsWith('"') && (json.containers.get(start) === end || (k >= 0 && json.starts[k] === start && json.ends[k] === end))) { out.push(r); continue; }
    const plain = markerRead(mark);
    for (const [from, to, scalar] of valuePieces(text, json, start, end)) {
      const m = from === start && to === end ? (scalar ? retyped(plain, text.slice(from, to)) : plain) : joinedMarker(text, from, to, plain);
      out.push([from, to, scalar ? JSON.stringify(m) : m]);
    }
  }
  return out;
}

/** What marks a value cut short, or its rest hidden: an ellipsis, two dots or more, [...], three
 *  asterisks or more (******), and (truncated) or [truncated] (the spaces before it are the mark's:
 *  markStart; a pattern reading them took time square in a run of spaces). */
const CUT_MARK = /\u2026|\[\.\.\.\]|\.{2,}|\*{3,}|[([]truncated[)\]]/;
/** Where a mark found at `at` starts: before the spaces that lead a word mark ((truncated)), at most
 *  MAX_MARK_SPACES of them and none before `floor`. */
function markStart(t: string, at: number, floor: number): number {
  if (t.charCodeAt(at + 1) !== 0x74) return at; // not "(truncated)"
  let i = at;
  while (i > floor && at - i < MAX_MARK_SPACES && t.charCodeAt(i - 1) === 0x20) i--;
  return i;
}
const MAX_MARK_SPACES = 8;
const CUT_MARKS = new RegExp(CUT_MARK.source, 'g');
/** Scopes listed in cutScopes before dead ones are first dropped. */
const MIN_CUT_SCOPES = 1024;
/** Characters of each of a scope's exchange's texts read for a word a cut mark ends (cutWordLearned). */
const MAX_CUT_SOURCE = 1 << 20;
/** An exchange's texts a cut mark's word or run is looked up in: its URL, bodies (4 * MAX_CUT_SOURCE
 *  bytes of the answer's) and header values. */
const exchangeTexts = (ex: Exchange): string[] => [ex.request.url, ex.request.body ?? '', ex.response?.body.toString('utf8', 0, 4 * MAX_CUT_SOURCE) ?? '', ...Object.values(ex.request.headers), ...Object.values(answerHeadOf(ex)?.headers ?? {})];
/** Places of a cut mark's run in one text read at most (cutRunLookup). */
const MAX_RUN_PLACES = 8;
/** Characters of an encoded run (hex, base32, base64, in groups or lines; escapes, inside a JSON string),
 *  never a cut mark's: where cutRunLookup reads a run on. */
const ENCODED_CHAR = /[A-Za-z0-9+/=_:\s\\-]/;
/** An escape, a reference or a byte a cut mark may have cut: a character's start, read apart (cutEndVariants). */
const PARTIAL_ESCAPE = /(?:&#?[xX]?[0-9a-fA-F]{0,6}|%[0-9a-fA-F]?|\\(?:u\{?[0-9a-fA-F]{0,5}|x[0-9a-fA-F]?|[0-9a-fA-F]{1,5})?|(?<=[ :-])[0-9a-fA-F])$/;
/** endReadings from this one on read an encoding's bytes (a hex dump, base64, base32). */
const ENCODED_READINGS = 2;
/** A text's end as a reader decodes it: canonical, its escapes and full-width forms, a hex dump,
 *  base64 and base32 in pieces (what cut() leaves out of a cut end, and a cut mark's word is read in). */
function endReadings(written: string, anyLower = false): Array<CanonicalText | undefined> {
  const c = canonical(written);
  return [c, escapedReading(c), hexDumpEnd(c, MIN_SCANNED), base64End(written, c, Math.ceil((MIN_SCANNED * 4) / 3), MAX_GROUPS_AROUND + 1), base32End(written, c, Math.ceil((MIN_SCANNED * 8) / 5), MAX_GROUPS_AROUND + 1, anyLower)];
}
/** The texts a cut mark's end is read in (cutPrefixRanges), each as [offset in `written`, text, the
 *  first of endReadings to read]: `written` (its canonical reading is the whole text's, read apart);
 *  less a unit the mark cut (PARTIAL_ESCAPE); its dashes read as spaces (base32 in dashed groups);
 *  and from after each of its last MAX_GROUPS_AROUND spaces (groups, a word before them). */
function cutEndVariants(written: string): Array<readonly [number, string, number]> {
  const out: Array<readonly [number, string, number]> = [[0, written, 1]];
  const open = PARTIAL_ESCAPE.exec(written)?.[0].length ?? 0;
  const whole = open ? written.slice(0, -open) : written;
  if (open) out.push([0, whole, 0]);
  if (whole.includes('-')) out.push([0, whole.replace(/-/g, ' '), ENCODED_READINGS]);
  let at = whole.length;
  for (let n = 0; n < MAX_GROUPS_AROUND; n++) {
    at = whole.lastIndexOf(' ', at - 1);
    if (at <= 0) break;
    out.push([at + 1, whole.slice(at + 1), ENCODED_READINGS]);
  }
  return out;
}
/** Every word of an exchange's texts (its URL, bodies and header values, as read, MAX_CUT_SOURCE
 *  characters of each), alone and with the word after it when only spaces stand between ("a b", as
 *  pair() writes two words); a word's parts between colons too. Sorted, each once. */
function cutWords(ex: Exchange): string[] {
  const out = new Set<string>();
  for (const text of exchangeTexts(ex)) {
    const t = canonical(text.slice(0, MAX_CUT_SOURCE)).text;
    let previous: { word: string; end: number } | undefined;
    for (const m of tokenMatches(t)) {
      const word = trimmed(m[0]);
      if (!word) continue;
      out.add(word);
      if (word.includes(':')) for (const part of word.split(':')) if (part) out.add(part);
      if (previous && /^[ \t]+$/.test(t.slice(previous.end, m.index))) out.add(pair(previous.word, word));
      previous = { word, end: m.index + m[0].length };
    }
  }
  return [...out].sort();
}
/** Where the spaces and tabs that end `t[0, i)` start. */
function spacesBefore(t: string, i: number): number {
  while (i > 0 && (t.charCodeAt(i - 1) === 0x20 || t.charCodeAt(i - 1) === 0x09)) i--;
  return i;
}
/** Where the token that ends `t[0, end)` starts (lastWordStart), MAX_PREFIX_CHECKED characters back at
 *  most, and not before `floor`. */
const wordBefore = (t: string, end: number, floor = 0): number => {
  const window = Math.max(floor, end - MAX_PREFIX_CHECKED);
  return window + lastWordStart(t.slice(window, end));
};
/** The length of the longest start of `needle`, shorter than it, that `text` spells just before `i`
 *  and after `floor`; 0 when none. */
function prefixBefore(text: string, i: number, needle: string, floor = 0): number {
  if (needle.length > MAX_PREFIX_CHECKED) return 0;
  const first = needle.charCodeAt(0);
  for (let k = Math.min(needle.length - 1, i - floor); k >= MIN_SCANNED; k--) {
    if (text.charCodeAt(i - k) === first && needle.startsWith(text.slice(i - k, i))) return k;
  }
  return 0;
}
/** Characters a cut may end after: whitespace and the punctuation that ends a value. */
const CUT_AT = /[\s"'<>,;()[\]{}»]/;
/** Where a text ending in whitespace ends less the word before it (up to a character a cut may end
 *  after), or `end` when it ends otherwise or in a marker: the first words of a value ("Flat 9 Baker
 *  Street", a token with a space) whose rest is cut are learned only with the words after them. */
function beforeSpacedWord(text: string, end: number): number {
  let k = end;
  while (k > 0 && /\s/.test(text[k - 1]!)) k--;
  if (k === end || text[k - 1] === '»') return end;
  const word = k;
  while (k > 0 && !CUT_AT.test(text[k - 1]!)) k--;
  return k < word ? k : end;
}
/** Passes of safeEnd at most: each leaves out what the last one's end exposed (a word as read). */
const MAX_CUT_PASSES = 4;
/** Characters of a cut text's end read decoded (safeEnd): a hex dump of MAX_BASE64_DECODED bytes. */
const CUT_READ = 3 * 4096;
/** An escape a cut left open, ending in a character a cut may end after: \u{ and its digits. */
const OPEN_ESCAPE = /\\u\{[0-9a-fA-F]{0,6}$/;
/** A character of a token (a token's but the colon). */
const TOKEN_CHAR = /[\p{L}\p{N}_@+~.-]/u;
/** Where the token that ends `t` starts (a token's characters, a colon before a letter or digit), or
 *  t.length when `t` ends in none. */
function lastWordStart(t: string): number {
  let k = t.length;
  while (k > 0) {
    const ch = t[k - 1]!;
    if (TOKEN_CHAR.test(ch) || (ch === ':' && k < t.length && /[\p{L}\p{N}]/u.test(t[k]!))) k--;
    else if (ch >= '\udc00' && ch <= '\udfff' && k > 1 && TOKEN_CHAR.test(t.slice(k - 2, k))) k -= 2;
    else break;
  }
  return k;
}
const WORD = /[\p{L}\p{N}_]/u;
/** Characters that join two words into one value (2026-11-01, a.b, x:y, a+b, a@b, a~b). */
const JOINER = /[-.:+@~]/;
/** Whether the `length` characters at `i` stand whole: not part of a longer word, nor joined to one
 *  (a short value inside a datetime, an address or a dotted name is not that value). */
const standsWhole = (text: string, i: number, length: number): boolean => {
  if (!startsWhole(text, i)) return false;
  const after = text[i + length];
  return !(after !== undefined && (WORD.test(after) || (JOINER.test(after) && i + length + 1 < text.length && WORD.test(text[i + length + 1]!))));
};

/** Whether a spelling is a secret header's whole value of several parts: it starts with words a peer
 *  writes anyway (Bearer, a cookie's name), so a cut's start or end is looked for in its parts alone. */
const headerWhole = (needle: string, s: Secret): boolean => s.marker.startsWith('«secret header') && /[\s;,=]/.test(needle);

/** Where the last characters of a spelled secret (a scope's table: configured, a header's, this
 *  scope's; MIN_PART or more, its whole too) that start at `after` of canonical reading `t` end,
 *  ending a word, by `ceiling` at the latest; `after` when none (cutPrefixRanges' other side of a mark). */
function cutSecretEnd(t: string, after: number, ceiling: number, tables: readonly SecretTable[]): number {
  let end = after;
  if (ceiling - after < MIN_PART) return end;
  for (const whole of tables) {
    for (const [needle, s] of whole.within(ceiling - after).spelled) {
      if (headerWhole(needle, s)) continue;
      const k = suffixAfter(t, after, ceiling, needle);
      // MIN_PART characters at least: a secret's last four are everyday data (a year, a card's tail).
      if (k >= MIN_PART && (!s.whole || k === needle.length) && !WORD.test(t[after + k] ?? ' ') && !harnessWord(t.slice(after, after + k).trim())) end = Math.max(end, after + k);
    }
  }
  return end;
}
/** The length of the longest end of `needle` (its whole included) that `text` spells from `at`, by
 *  `ceiling` at the latest; 0 when none. */
function suffixAfter(text: string, at: number, ceiling: number, needle: string): number {
  if (needle.length > MAX_PREFIX_CHECKED) return 0;
  for (let k = Math.min(needle.length, ceiling - at); k >= MIN_PART; k--) {
    if (text.charCodeAt(at) === needle.charCodeAt(needle.length - k) && text.startsWith(needle.slice(needle.length - k), at)) return k;
  }
  return 0;
}

/** Whether a word at `i` starts whole: not inside a longer word, nor joined to one (standsWhole's start). */
const startsWhole = (text: string, i: number): boolean => {
  const before = text[i - 1];
  return !(before !== undefined && (WORD.test(before) || (JOINER.test(before) && i > 1 && WORD.test(text[i - 2]!))));
};

/** Lower-case hex of at least a long token's bytes (an even number of digits). */
const HEX_TOKEN = /^(?:[0-9a-f]{2}){8,}$/;
/** Whether a token of an output (canonical) is a learned token, as written, reversed, or as the hex of
 *  its UTF-8 bytes (the spellings secretSpellings gives a known secret); a long token only for the two
 *  last, as they were learned. */
function learnedToken(fingerprints: FingerprintSet, token: string): boolean {
  if (fingerprints.has(token)) return true;
  if (token.length < MIN_PART) return false;
  const reversed = [...token].reverse().join('');
  if (reversed.length >= MIN_PART && fingerprints.has(reversed)) return true;
  if (!HEX_TOKEN.test(token)) return false;
  const decoded = canonicalValue(Buffer.from(token, 'hex').toString('utf8'));
  return decoded.length >= MIN_PART && fingerprints.has(decoded);
}

/** Runs of the base64 alphabets in a canonical (lower-case) text long enough to hide a secret, and
 *  their segments between slashes (a URL's path). */
const BASE64_RUN = new RegExp(`[a-z0-9+/_-]{${MIN_BASE64},}={0,2}`, 'g');
const BASE64_SEGMENT = new RegExp(`[A-Za-z0-9+_-]{${MIN_BASE64},}={0,2}`, 'g');
/** Runs of the alphabets over two lines or more (MIME, PEM), in a canonical text. Tried only where a
 *  run starts (the look-behind): tried inside one, a long line was read again from each character. */
const BASE64_LINES = /(?<![a-z0-9+/_-])[a-z0-9+/_-]+(?:[ \t]*\r?\n[ \t]*[a-z0-9+/_-]+)+={0,2}/g;
/** Runs in a decoded text (its own letter case), on one line or over several, for base64 inside base64. */
const BASE64_CASED = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]+(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/_-]+)*={0,2}/g;
/** Base64 in groups of four characters with a space between (a canonical text): two groups at least,
 *  the last one short (one character: a stable spelling, learnedStem) or padded; a dash or an underscore that joins it to another run is no group of it. */
const BASE64_GROUPS = /(?:(?<![a-z0-9+/_=-])|(?<=[a-z0-9+/=][_-]))(?:[a-z0-9+/_-]{4}[ \t])+[a-z0-9+/_-]{1,4}={0,2}(?![a-z0-9+/=]|[_-](?![a-z0-9+/]))/g;
/** Pieces of a base64 run joined by dashes or underscores looked up together at most. */
const MAX_JOINED_RUNS = 8;
/** Where the pieces of base64 `run` between its dashes and underscores start and end. */
function pieceBounds(run: string): { starts: number[]; ends: number[] } {
  const starts = [0];
  const ends: number[] = [];
  for (let k = 0; k < run.length; k++) if (run[k] === '-' || run[k] === '_') { ends.push(k); starts.push(k + 1); }
  ends.push(run.length);
  return { starts, ends };
}
/** The narrowest runs of whole pieces of `run` (between its dashes and underscores; the run itself left
 *  out), MIN_BASE64 characters or more, for which `learned` holds, as [start, end) of `run`; none
 *  inside another one found. */
function joinedRuns(run: string, learned: (piece: string) => boolean): Array<[number, number]> {
  const { starts, ends } = pieceBounds(run);
  const out: Array<[number, number]> = [];
  for (let width = 0; width < MAX_JOINED_RUNS && width < starts.length; width++) {
    for (let i = 0; i + width < starts.length; i++) {
      const [a, b] = [starts[i]!, ends[i + width]!];
      if (b - a < MIN_BASE64 || (a === 0 && b === run.length) || out.some(([x, y]) => a <= x && y <= b)) continue;
      if (learned(run.slice(a, b))) out.push([a, b]);
    }
  }
  return out;
}
/** `run[a, b)`, whole pieces of base64 `run` (joinedRuns), widened over the pieces on either side to
 *  the widest span, MAX_JOINED_RUNS pieces at most, for which `learned` holds. */
function widenedRun(run: string, a: number, b: number, learned: (piece: string) => boolean): [number, number] {
  const { starts, ends } = pieceBounds(run);
  const [i, j] = [starts.indexOf(a), ends.indexOf(b)];
  let best: [number, number] = [a, b];
  for (let from = Math.max(0, j - MAX_JOINED_RUNS + 1); from <= i; from++) {
    for (let to = Math.min(ends.length - 1, from + MAX_JOINED_RUNS - 1); to >= j; to--) {
      const [x, y] = [starts[from]!, ends[to]!];
      if (y - x > best[1] - best[0] && learned(run.slice(x, y))) best = [x, y];
    }
  }
  return best;
}
/** Whether the pieces of base64 `run` outside `found` ([start, end) each, in order) hold a learned
 *  token, read as text or lossily. */
function outsideLearned(fingerprints: FingerprintSet, run: string, found: ReadonlyArray<readonly [number, number]>): boolean {
  let from = 0;
  for (const [a, b] of [...found].sort((x, y) => x[0] - y[0]).concat([[run.length, run.length]])) {
    for (const piece of run.slice(from, Math.max(from, a)).split(/[-_]/)) {
      const lossy = piece.length >= MIN_SCANNED ? base64Text(piece, MAX_BASE64_DECODED, true) : undefined;
      if (lossy !== undefined && learnedText(fingerprints, lossy)) return true;
    }
    from = Math.max(from, b);
  }
  return false;
}
/** Whether base64 `piece` decodes to text holding a learned token, or to UTF-16LE text that does. */
const learnedBase64 = (fingerprints: FingerprintSet, piece: string): boolean => {
  const decoded = base64Text(piece, MAX_BASE64_DECODED);
  return (decoded !== undefined && readsAsText(decoded) && learnedText(fingerprints, decoded)) || learnedStem(fingerprints, piece) || learnedUtf16(fingerprints, piece);
};
/** Groups left out at either end of a run of BASE64_GROUPS at most. */
const MAX_GROUPS_AROUND = 3;
/** Base32 (RFC 4648: A-Z, 2-7), padded or not, in a canonical text. */
const BASE32_RUN = new RegExp(`(?<![a-z0-9+/_-])[a-z2-7]{${MIN_BASE64},}={0,6}(?![a-z0-9+/_=-])`, 'g');
/** The groups (each `group`) of a match, as [from, to) of the text. */
const groupsOf = (m: RegExpExecArray, group: RegExp): Array<readonly [number, number]> =>
  [...m[0].matchAll(group)].map((g) => [m.index + g.index, m.index + g.index + g[0].length] as const);
/** The runs of `count` groups less up to MAX_GROUPS_AROUND of them at either end, as the indexes of
 *  their first and last group, to `visit` until it takes one (returns true). */
function groupWindows(count: number, visit: (first: number, last: number) => boolean): void {
  for (let first = 0; first <= MAX_GROUPS_AROUND; first++) {
    for (let last = count - 1; last >= count - 1 - MAX_GROUPS_AROUND && last > first; last--) if (visit(first, last)) return;
  }
}
/** Whether the `g`th group of four of base64 `joined` decodes to bytes each of text (textBytes; a
 *  last group of no byte, a stem's, too). */
function textGroups(joined: string): (g: number) => boolean {
  const text = textBytes(Buffer.from(joined, 'base64'));
  return (g) => text.subarray(3 * g, 3 * g + 3).every((b) => b === 1);
}
/** The runs [first, last] of two or more groups of four of base64 `joined` of text (textGroups), in
 *  order. A secret's groups among a hash's decode to their own bytes, but read with a hash's group of
 *  a letter beside them its first or last letter is fused to that letter (a word of letters alone is
 *  not looked for inside a longer one, learnedParts). */
function textGroupRuns(joined: string): Array<[number, number]> {
  const ofText = textGroups(joined);
  const count = Math.ceil(joined.replace(/=+$/, '').length / 4);
  const out: Array<[number, number]> = [];
  let start = -1;
  for (let g = 0; g <= count; g++) {
    if (g < count && ofText(g)) { if (start < 0) start = g; continue; }
    if (start >= 0 && g - 1 > start) out.push([start, g - 1]);
    start = -1;
  }
  return out;
}
/** Whether a run of whole groups of text inside base64 `run` (textGroupRuns; the run itself left out,
 *  read whole already), less a few groups at either end, decodes to text holding a learned token. */
function learnedTextGroups(fingerprints: FingerprintSet, run: string): boolean {
  const joined = run.slice(0, MAX_BASE64_DECODED);
  const count = Math.ceil(joined.replace(/=+$/, '').length / 4);
  let found = false;
  for (const [s, e] of textGroupRuns(joined)) {
    if (s === 0 && e === count - 1) continue;
    groupWindows(e - s + 1, (first, last) => (found = learnedBase64(fingerprints, joined.slice(4 * (s + first), 4 * (s + last + 1)))));
    if (found) return true;
  }
  return false;
}
/** The runs [start, end) of `groups` (of canonical text `t`, each as written in `cased`) that one
 *  encoder may have written: one separator between them, one letter case, ended by padding or by a
 *  group shorter than the one before (the first may be a word before the run: groupWindows leaves it
 *  out). Two spellings side by side are two runs. */
function groupRuns(t: string, groups: ReadonlyArray<readonly [number, number]>, cased: ReadonlyArray<string | undefined>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  // 1: small letters, 2: capitals (3: both, or not read as written: no run's).
  const cases = cased.map((w) => {
    if (w === undefined) return 3;
    let k = 0;
    for (let i = 0; i < w.length; i++) { const ch = w.charCodeAt(i); k |= ch >= 0x61 && ch <= 0x7a ? 1 : ch >= 0x41 && ch <= 0x5a ? 2 : 0; }
    return k;
  });
  const caseOf = (g: number): number => cases[g]!;
  let start = 0;
  let runCase = caseOf(0);
  for (let g = 1; g <= groups.length; g++) {
    const previous = groups[g - 1]!;
    const length = previous[1] - previous[0];
    const ended = g === groups.length || t[previous[1] - 1] === '='
      || (g - 2 > start && length < groups[g - 2]![1] - groups[g - 2]![0])
      || (g - 1 > start && t[previous[0] - 1] !== t[groups[g]![0] - 1])
      || (caseOf(g) | runCase) === 3;
    if (!ended) { runCase |= caseOf(g); continue; }
    if (g - start >= 2) out.push([start, g]);
    start = g;
    if (g < groups.length) runCase = caseOf(g);
  }
  return out;
}
/** Base32 in groups (a canonical text): two groups at least, a space, a tab or a dash between. */
const BASE32_GROUPS = /(?<![a-z0-9+/_-])[a-z2-7]{3,8}(?:[ \t-][a-z2-7]{1,8})+={0,6}(?![a-z0-9+/_=-])/g;
/** Whether groups[first..last] ([from, to) each) are of one length but the last, which is no longer: as an encoder writes them. */
function evenGroups(groups: ReadonlyArray<readonly [number, number]>, first: number, last: number): boolean {
  const length = groups[first]![1] - groups[first]![0];
  for (let i = first + 1; i < last; i++) if (groups[i]![1] - groups[i]![0] !== length) return false;
  return groups[last]![1] - groups[last]![0] <= length;
}
/** Characters of base32 in lower case read at least (BASE32_RUN): the unpadded base32 of MIN_PART bytes. */
const MIN_BASE32_LOWER = Math.ceil((MIN_PART * 8) / 5);
/** Whether decoded text is, whole, a learned token of MIN_PART characters or more. */
const exactlyLearned = (fingerprints: FingerprintSet, decoded: string): boolean => {
  const t = canonicalValue(decoded);
  return t.length >= MIN_PART && fingerprints.has(t);
};
/** Hex of MIN_PART bytes or more in one run, a token of its own. */
const HEX_RUN = new RegExp(`(?<![0-9a-z])(?:[0-9a-f]{2}){${MIN_PART},}(?![0-9a-z])`, 'g');
/** Hex of MIN_PART bytes or more written byte by byte, a HEX_SEPARATORS between (a dump, a key's fingerprint, BitConverter's). */
const HEX_BYTES = new RegExp(`(?<![0-9a-z])[0-9a-f]{2}(?:[${HEX_SEPARATORS}][0-9a-f]{2}){${MIN_PART - 1},}(?![0-9a-z])`, 'g');
/** Base64 decoded inside base64 (base64 of base64, a document holding base64) this deep at most. */
const MAX_BASE64_DEPTH = 3;
/** A marker of a known secret's kind, as the scope's table writes it (not JSON- or URL-spelled). */
const KIND_MARKER = /^«(?:credential|personal|secret header):/;
/** Characters of a base64 token decoded at most: a token of megabytes costs what one of a few KiB does. */
const MAX_BASE64_DECODED = 4096;
/** Groups of four of base64 decoded at most in one read (MAX_BASE64_DECODED characters). */
const DECODED_GROUPS = MAX_BASE64_DECODED / 4;
/** Groups of base64 (BASE64_GROUPS) past which the fewest that hold a secret are found by halving. */
const BISECTED_GROUPS = 64;
/** Characters of base64 groups decoded by every scan so far: what reading a text of groups costs, for
 *  test/redact-long-encoded.test.ts (linear in the text; it had been the text times a window). */
let groupCharactersDecoded = 0;
export const base64GroupsDecoded = (): number => groupCharactersDecoded;

/** How a run of each encoding is read past its first window (laterWindowLearned): characters a window
 *  holds (MAX_BASE64_DECODED bytes' worth), on a multiple of how many a window starts, its bytes, and
 *  how they are read: as text holding a learned token where they are UTF-8 (a character cut at either
 *  end left out), else as bytes holding a long one (`lossy`); `utf16`: also as UTF-16LE text; `base64`:
 *  also as its first window is (a window of bytes by its runs of text groups, learnedTextGroups; the
 *  last window, one character past whole groups, as a stem, learnedStem). Past the first window, a
 *  secret only those read had been shown as sent. */
const WINDOWS = {
  base64: { size: MAX_BASE64_DECODED, bytes: (w: string) => Buffer.from(w, 'base64'), lossy: true, utf16: true, base64: true },
  'base64 lines': { size: MAX_BASE64_DECODED, bytes: (w: string) => Buffer.from(w, 'base64'), lossy: false, utf16: true, base64: false },
  base32: { size: MAX_BASE64_DECODED, bytes: (w: string) => base32Bytes(w.replace(/=+$/, '')), lossy: false, utf16: false, base64: false },
  hex: { size: 2 * MAX_BASE64_DECODED, bytes: (w: string) => Buffer.from(w, 'hex'), lossy: true, utf16: false, base64: false },
  'hex dump': { size: 3 * MAX_BASE64_DECODED, bytes: (w: string) => Buffer.from(w.replace(HEX_SEPARATOR, ''), 'hex'), lossy: true, utf16: false, base64: false },
} as const;

/** Whether an encoded `run` holds a learned token past its first window (which the caller reads): read
 *  in windows of as many characters, each half a window after the one before, so that a token of up to
 *  half a window's bytes lies whole in one, and a run of megabytes is read in time linear in its
 *  length. Past the first window, such a secret had been shown as sent. */
function laterWindowLearned(fingerprints: FingerprintSet, run: string, encoding: keyof typeof WINDOWS): boolean {
  const { size, bytes: bytesOf, lossy, utf16, base64 } = WINDOWS[encoding];
  for (let s = size / 2; s + size / 2 < run.length; s += size / 2) {
    const window = run.slice(s, s + size);
    const bytes = bytesOf(window);
    if (bytes === undefined) continue;
    const part = utf8Part(bytes, true, true);
    const text = part?.toString('utf8');
    if (text !== undefined ? (encoding !== 'base32' || readsAsText(text)) && learnedText(fingerprints, text) : lossy && learnedLongToken(fingerprints, bytes.toString('utf8'), encoding !== 'base64')) return true;
    if (utf16 && learnedUtf16(fingerprints, window)) return true;
    // Windows start on whole groups (a multiple of four characters), so the run's are theirs.
    if (base64 && ((text === undefined && learnedTextGroups(fingerprints, window)) || (s + size >= run.length && learnedStem(fingerprints, window)))) return true;
  }
  return false;
}

/** The characters of `text` that the canonical run `c.text[start, start + length)` came from, in
 *  their own letter case (base64 is read by it), each decoded as a reader reads it (readCased); or
 *  undefined when one of them is not read as one character. */
function casedRun(text: string, c: ReturnType<typeof canonical>, start: number, length: number): string | undefined {
  const from = c.from[start]!;
  const to = c.to[start + length - 1]!;
  // Written as read (nearly always): its characters as they are.
  if (to - from === length) return text.slice(from, to);
  let out = '';
  for (let k = start; k < start + length;) {
    // Characters decoded from one spelling (a run of %HH) share its range: read together.
    let next = k + 1;
    while (next < start + length && c.from[next] === c.from[k] && c.to[next] === c.to[k]) next++;
    const read = readCased(text.slice(c.from[k], c.to[k]));
    if (read.length !== next - k || read.toLowerCase() !== c.text.slice(k, next)) return undefined;
    out += read;
    k = next;
  }
  return out;
}

/** Whether a decoded text (base64Text) holds a learned token, read as an output's tokens are
 *  (learnedToken, and two words of one value in a row); a token joined by colons (a Basic
 *  credential's user:password) by its parts too. */
function learnedText(fingerprints: FingerprintSet, decoded: string, depth = 1): boolean {
  const t = canonical(decoded).text;
  let previous: { word: string; end: number } | undefined;
  for (const m of tokenMatches(t)) {
    const token = trimmed(m[0]);
    if (!token) continue;
    if (token.length >= MIN_SCANNED && learnedToken(fingerprints, token)) return true;
    if (token.includes(':') && token.split(':').some((p) => p.length >= MIN_SCANNED && learnedToken(fingerprints, p))) return true;
    if (token.length > MIN_PART && learnedParts(fingerprints, token).length) return true;
    if (previous && !boundaryBetween(t, previous.end, m.index) && fingerprints.has(pair(previous.word, token))) return true;
    previous = { word: token, end: m.index + m[0].length };
  }
  if (depth >= MAX_BASE64_DEPTH) return false;
  // Base64 the decoded text holds, decoded in turn: each at most MAX_BASE64_DECODED, as the outer one.
  for (const m of readCased(decoded).matchAll(BASE64_CASED)) {
    const run = m[0].replace(/\s+/g, '');
    if (run.length < MIN_BASE64) continue;
    const inner = base64Text(run, MAX_BASE64_DECODED);
    if (inner !== undefined && learnedText(fingerprints, inner, depth + 1)) return true;
  }
  return false;
}

/** Which of `bytes` are of text as readsAsText reads it (no control character but tab and line
 *  breaks), each the whole UTF-8 sequence of a character: 1, else 0. */
function textBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    const control = n === 1 && ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f);
    if (n === 0 || control || i + n > bytes.length || !isUtf8(bytes.subarray(i, i + n))) { i++; continue; }
    out.fill(1, i, i + n);
    i += n;
  }
  return out;
}

/** Whether base64 `run`, one character past whole groups of four, is a value's stable spelling
 *  (base64Spellings: of 3k + 1 bytes, the low two bits of the last not written, as a configured
 *  secret's is searched for) of text holding a learned token: read with each of the four endings
 *  those bits may have (a second character of 0, 16, 32 or 48). No encoder writes such a run whole. */
function learnedStem(fingerprints: FingerprintSet, run: string): boolean {
  if (run.length % 4 !== 1) return false;
  for (const tail of 'AQgw') {
    const decoded = base64Text(run + tail, MAX_BASE64_DECODED);
    if (decoded !== undefined && readsAsText(decoded) && learnedText(fingerprints, decoded)) return true;
  }
  return false;
}

/** Whether base64 `run` is the UTF-16LE encoding (utf16Base64Text) of text holding a learned token. */
function learnedUtf16(fingerprints: FingerprintSet, run: string): boolean {
  const text = utf16Base64Text(run, MAX_BASE64_DECODED);
  return text !== undefined && readsAsText(text) && learnedText(fingerprints, text);
}

/** Whether bytes written in hex hold a long learned token (learnedLongToken, inside longer ones too)
 *  as UTF-8, or as UTF-16 (LE or BE) where every other byte is 0 (text of Latin-1 characters: a
 *  .NET string's bytes, Encoding.Unicode). */
function learnedHexBytes(fingerprints: FingerprintSet, bytes: Buffer): boolean {
  if (learnedLongToken(fingerprints, bytes.toString('utf8'), true)) return true;
  const n = bytes.length - (bytes.length % 2);
  if (n < 2 * MIN_PART) return false;
  let [le, be] = [true, true];
  for (let k = 0; k < n && (le || be); k += 2) { le &&= bytes[k + 1] === 0 && bytes[k] !== 0; be &&= bytes[k] === 0 && bytes[k + 1] !== 0; }
  if (!le && !be) return false;
  const units = Buffer.from(bytes.subarray(0, n));
  if (be) units.swap16();
  return learnedLongToken(fingerprints, units.toString('utf16le'), true);
}

/** Whether a text decoded from bytes that are no UTF-8 holds a learned token of MIN_PART characters
 *  or more, as written: shorter ones, or a token's parts, turn up in such bytes by chance. `inside`:
 *  inside a longer token too (learnedParts), for text that is no garbage (a hex dump of two values in
 *  a row). */
function learnedLongToken(fingerprints: FingerprintSet, decoded: string, inside = false): boolean {
  for (const m of tokenMatches(canonicalValue(decoded))) {
    const token = trimmed(m[0]);
    if (token.length >= MIN_PART && fingerprints.has(token)) return true;
    if (inside && token.length > MIN_PART && learnedParts(fingerprints, token).length) return true;
  }
  return false;
}

/** Characters that join the parts of one token (a token's besides letters and digits). */
const JOINS = /[_@+~.:-]/;
/** Parts of a joined token looked up together at most (a secret of more joined parts is rare). */
const MAX_JOINED_PARTS = 8;
/** The runs of whole parts of a canonical token (between the characters that join them, JOINS) of
 *  MIN_PART characters or more whose fingerprint was learned, the token itself left out: a learned
 *  token another word is joined to (bob@token, token.txt, id-token) as [start, end) of the token. */
function joinedParts(fingerprints: FingerprintSet, token: string): Array<[number, number]> {
  const starts = [0];
  const ends: number[] = [];
  for (let k = 0; k < token.length; k++) if (JOINS.test(token[k]!)) { ends.push(k); starts.push(k + 1); }
  ends.push(token.length);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < starts.length; i++) {
    for (let j = i; j < ends.length && j < i + MAX_JOINED_PARTS; j++) {
      const [a, b] = [starts[i]!, ends[j]!];
      if (b - a < MIN_PART || (a === 0 && b === token.length) || JOINS.test(token[a]!) || JOINS.test(token[b - 1]!)) continue;
      if (fingerprints.has(token.slice(a, b))) out.push([a, b]);
    }
  }
  return out;
}

/** Tokens searched for a learned value fused to other characters at most this long: each start and
 *  length of one is looked up (FingerprintSet.within). */
const MAX_FUSED = 256;
/** A letter and a digit: what a run found inside a word must hold. */
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;
/** The learned parts of a canonical token longer than MIN_PART, the token itself left out: runs of its
 *  joined parts (joinedParts), else any run of MIN_PART characters or more that holds letters and
 *  digits (a password or a token fused to letters, xxtokenyy). A value of one kind is not looked for
 *  inside a word: a date, a phone number or a name turns up inside timestamps, longer numbers and
 *  other words by chance. Nor a shorter learned value (a name of three letters is in many words),
 *  nor anything inside a harness word. */
function learnedParts(fingerprints: FingerprintSet, token: string): Array<[number, number]> {
  const joined = joinedParts(fingerprints, token);
  if (joined.length || token.length > MAX_FUSED || !LETTER.test(token) || !DIGIT.test(token) || harnessWord(token)) return joined;
  const fused: Array<[number, number]> = [];
  fingerprints.within(token, MIN_PART, fused);
  return fused.filter(([a, b]) => { const run = token.slice(a, b); return LETTER.test(run) && DIGIT.test(run); });
}

/** The marker of ranges that overlap (replaceRanges): the longest one's when it states no length
 *  («secret: words» of a value's words in a row), else its kind, in its spelling, stating the length of
 *  what the joined range hides as a reader reads it (escapes decoded, as a match's marker states the
 *  length of the value it found), inside the quotes when the longest stands for a JSON string. */
function joinedMarker(text: string, start: number, end: number, longest: string): string {
  const spelling = longest.startsWith('"') ? 'json' : longest.startsWith('%') ? 'url' : 'text';
  const plain = markerRead(longest);
  if (!/ \d+ chars»$/.test(plain)) return longest;
  const quoted = spelling === 'json' && end - start >= 2 && text[start] === '"' && text[end - 1] === '"';
  const length = codePointCount(canonical(text.slice(quoted ? start + 1 : start, quoted ? end - 1 : end)).text);
  const kind = /^«(credential|personal|secret header):/.exec(plain)?.[1];
  const mark = kind ? `«${kind}: string, ${length} chars»` : `«secret: ${length} chars»`;
  return spelling === 'json' ? JSON.stringify(mark) : spelling === 'url' ? encodeURIComponent(mark) : mark;
}

/** Whether a range lies inside one of the markers (sorted, not overlapping). */
function inside(markers: ReadonlyArray<readonly [number, number]>, r: Range): boolean {
  let lo = 0;
  let hi = markers.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = markers[mid]!;
    if (r[1] <= a) hi = mid - 1;
    else if (r[0] >= b) lo = mid + 1;
    else return r[0] >= a && r[1] <= b;
  }
  return false;
}

/** A match in a reading view, as the ranges of the original text its characters came from: one range
 *  per run of adjacent characters, so the markup between the pieces stays. Character by character of
 *  the view: what one read character came from may lie in two strings (a character that shows nothing
 *  at the start of the second is read with the last of the first), and the markup between stays too. */
function pieces(view: { c: ReturnType<typeof canonical>; at: Uint32Array }, i: number, length: number, mark: string): Range[] {
  const out: Range[] = [];
  for (let v = view.c.from[i]!; v < view.c.to[i + length - 1]!; v++) {
    const at = view.at[v]!;
    const top = out[out.length - 1];
    if (top && at <= top[1]) top[1] = Math.max(top[1], at + 1);
    else out.push([at, at + 1, mark]);
  }
  return out;
}

/** Requests learnFlatObject reads as text: at most this long, with at most this many members. */
const FLAT_LENGTH = 4096;
const FLAT_MEMBERS = 32;
/** learnFlatObject's names of the object read (what it knows of each), and the start, end and kind (1:
 *  a number) of each value it will learn. */
const FLAT_SEEN: NamedMember[] = [];
const FLAT = new Int32Array(3 * FLAT_MEMBERS);
/** Whether `t[from, to)` is `name`. */
function spelled(t: string, from: number, to: number, name: string): boolean {
  if (to - from !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (t.charCodeAt(from + k) !== name.charCodeAt(k)) return false;
  return true;
}
/** Where the JSON whitespace from `i` ends. */
function skipSpace(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}
/** Where the JSON string whose characters start at `from` ends (its closing quote), or -1 when it has
 *  an escape or a control character (JSON.parse refuses it) or is not closed. */
function plainStringEnd(t: string, from: number): number {
  for (let j = from; j < t.length; j++) {
    const c = t.charCodeAt(j);
    if (c === 0x22) return j;
    if (c === 0x5c || c < 0x20) return -1;
  }
  return -1;
}

/** What the learner knows of a member name (Redactor.fingerprintValues): its sensitivity, the name
 *  that came after it when it was last seen, and the first name of the object it last held. A record's
 *  names come in the same order answer after answer (one left out here and there), so most names are
 *  found by comparing them with the one expected, not looked up. Every answer taken from here is the
 *  name's own (`name` is compared whole first): a wrong guess costs a lookup, never a wrong kind. */
interface NamedMember {
  readonly name: string;
  readonly kind: Sensitivity | undefined;
  next: NamedMember | undefined;
  first: NamedMember | undefined;
}
/** ValuesOf when no values are at hand: every value is looked up by name. */
const NO_LISTED_VALUES: ValuesOf = () => undefined;
/** What holds an answer's own value, and a request's. */
const ROOT_MEMBER: NamedMember = { name: '', kind: undefined, next: undefined, first: undefined };
const REQUEST_ROOT: NamedMember = { name: '', kind: undefined, next: undefined, first: undefined };
/** What holds the value of a name not kept: its guesses are not kept either (`first` stays unset). */
const LOOSE_MEMBER: NamedMember = {
  name: '', kind: undefined, next: undefined,
  get first() { return undefined; },
  set first(_: NamedMember | undefined) { /* not kept */ },
};
/** Names kept at most, of at most this length: a run names the same hundred or so. Past the bound a
 *  new name is asked each time (knownSensitivity) and never kept: what is kept stays small for good. */
const MAX_NAMED = 4096;
const MAX_NAMED_LENGTH = 64;
const NAMED = new Map<string, NamedMember>();
/** The names of flat requests' members (learnFlatObject), apart: their order is not an answer's. */
const FLAT_NAMED = new Map<string, NamedMember>();
/** What holds a flat request: `first` the first name of the last one, `next` that of the one before. */
const FLAT_ROOT: NamedMember = { name: '', kind: undefined, next: undefined, first: undefined };
/** The name's entry in `table`: made (its name a copy V8 keeps as a property key, which holds nothing
 *  of a body and compares with another such name at once) on first sight, within the bound. */
function namedMember(name: string, table = NAMED): NamedMember | undefined {
  const known = table.get(name);
  if (known !== undefined || name.length > MAX_NAMED_LENGTH || table.size >= MAX_NAMED) return known;
  const kept = Object.keys({ [name]: 0 })[0] ?? name;
  const m: NamedMember = { name: kept, kind: sensitivityOfName(kept), next: undefined, first: undefined };
  table.set(kept, m);
  return m;
}

/** Names whose sensitivity was asked, and the answer: every exchange names the same members, and
 *  sensitivityOfName lower-cases and tests a pattern. */
const knownSensitivity = remembered((name) => sensitivityOfName(name), 4096, 64);

/** Markup: never JSON, so not handed to JSON.parse only to throw. */
const MARKUP = /^\s*</;

/** A small JSON text (a request body) as a value, or undefined when it is not JSON within the limits. */
function parseQuietly(text: string): JsonValue | undefined {
  if (text.length > 64 * 1024) return undefined;
  // A plain text (lib/json/plain-json.ts) is read and measured in one pass, to the value JSON.parse gives.
  const plain = plainJson(text);
  if (plain !== NOT_PLAIN) return plain;
  if (MARKUP.test(text) || jsonLimitPassed(text)) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
