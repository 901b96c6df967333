// The spellings a secret can take in text a target or a writer produces. A value is searched for by
// meaning, not by one spelling: the text is first brought to a canonical form (JSON escapes, XML
// character and entity references and URL percent-encoding decoded, letters lower-cased), keeping for
// every canonical character the range of the original text it came from, so a match is masked in the
// original exactly. Characters that show nothing (U+200B zero-width space, U+00AD soft hyphen, the
// other zero-width format characters) are left out of the canonical form, so a value with them between
// its characters reads as the value. Base64 and hex cannot be decoded in place (their alignment is
// unknown), so those spellings of a secret are computed once and searched for (secretSpellings); a
// token of a text that is base64 is decoded whole (base64Text) for what was learned elsewhere.
import { isUtf8 } from 'node:buffer';
import { LONE_SURROGATE } from '../json/utf8.js';

/** A canonical form of a text, and where each of its characters came from in the original. */
export interface CanonicalText {
  readonly text: string;
  /** For canonical index i: the original range [from[i], to[i]). */
  readonly from: Uint32Array;
  readonly to: Uint32Array;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HEX = /^[0-9a-fA-F]+$/;
const XML_REF = /&#(?:[xX]0*([0-9a-fA-F]{1,6})|0*(\d{1,7}));|&(lt|gt|amp|quot|apos);/y;
/** HTML's named references of the ASCII characters a token or its joiners are written with (a
 *  browser shows &commat; as @), and no-break space. */
const HTML_ENTITIES: Readonly<Record<string, string>> = {
  ...XML_ENTITIES, AMP: '&', LT: '<', GT: '>', QUOT: '"', Tab: '\t', NewLine: '\n', nbsp: '\u00a0', excl: '!', num: '#',
  dollar: '$', percnt: '%', lpar: '(', rpar: ')', ast: '*', midast: '*', plus: '+', comma: ',', period: '.', sol: '/',
  colon: ':', semi: ';', equals: '=', quest: '?', commat: '@', lsqb: '[', lbrack: '[', bsol: '\\', rsqb: ']', rbrack: ']',
  Hat: '^', lowbar: '_', UnderBar: '_', grave: '`', DiacriticalGrave: '`', lcub: '{', lbrace: '{', verbar: '|', vert: '|',
  VerticalLine: '|', rcub: '}', rbrace: '}',
};
/** A reference as an HTML reader reads it: XML's, a numeric one without its semicolon (&#64), a named
 *  one of HTML_ENTITIES, and the four a browser reads without one where no name goes on (&amp). */
const HTML_REF = /&#(?:[xX]0*([0-9a-fA-F]{1,6})|0*(\d{1,7}));?|&([A-Za-z]+);|&(amp|AMP|lt|LT|gt|GT|quot|QUOT)(?![A-Za-z0-9=])/y;
const UTF8 = new TextDecoder('utf-8');
/** Characters a reader does not see: Unicode's default-ignorable code points (zero-width space, joiners,
 *  soft hyphen, BOM, variation selectors, tag characters, the musical and shorthand format controls,
 *  fillers, bidi controls) and the interlinear annotation marks. A secret with U+E0101 after each
 *  letter was shown whole when the list stopped at U+FEFF. */
const INVISIBLE_CLASS = '[\\p{Default_Ignorable_Code_Point}\\ufff9-\\ufffb]';
const INVISIBLE = new RegExp(`^${INVISIBLE_CLASS}$`, 'u');
/** INVISIBLE anywhere in a text, and every one of them. */
const INVISIBLE_ANY = new RegExp(INVISIBLE_CLASS, 'u');
const INVISIBLE_ALL = new RegExp(INVISIBLE_CLASS, 'gu');

/** Lower case, one code unit for one: characters whose lower case is longer stay as they are, so the
 *  index map stays one to one. */
const fold = (c: string): string => {
  if (c === FINAL_SIGMA) return SIGMA;
  const l = c.toLowerCase();
  return l.length === c.length ? l : c;
};
/** Greek small final sigma folds to sigma (Unicode case folding, CaseFolding.txt): toLowerCase() of a
 *  whole value writes ς at a word's end, a character at a time σ. */
const FINAL_SIGMA = '\u03c2';
const SIGMA = '\u03c3';

/** A character and its combining marks composed (NFC), then folded. i + U+0307 (+ marks) is İ folded
 *  (İ folds to itself: its lower case is two characters) and is composed back to İ, so that İ written
 *  composed and decomposed are one text. A decorating mark (DRAWN_OVER) is left out. */
function composedCluster(cluster: string): string {
  let nfc = cluster.normalize('NFC');
  if (cluster.charCodeAt(0) === 0x69 && cluster.includes('\u0307')) {
    const dotted = `I${cluster.slice(1)}`.normalize('NFC');
    if (dotted.charCodeAt(0) === 0x130) nfc = dotted;
  }
  let out = '';
  for (let k = 0; k < nfc.length; k++) if (!DRAWN_OVER.test(nfc[k]!)) out += fold(nfc[k]!);
  return out;
}

/** The combining marks drawn over or under a letter to decorate it, not to make another letter: a
 *  line above or below (U+0305, U+0332, U+0333, U+033F), an overlay stroke, tilde or solidus
 *  (U+0334-U+0338), and the marks for symbols (an enclosing circle or box: U+20D0-U+20FF). A reader
 *  reads the letter (Z̶q̶9̶ is Zq9; a value struck through on every letter was shown whole). An accent,
 *  a tone or a stress mark makes another letter (ó is not o; за́мок is not замо́к), composed or not: kept. */
const DRAWN_OVER = /[\u0305\u0332\u0333\u033f\u0334-\u0338\u20d0-\u20ff]/;

/** XML character and entity references decoded (an element's character data). */
export const decodeXmlReferences = (s: string): string =>
  s.replace(new RegExp(XML_REF.source, 'g'), (ref: string, hex?: string, dec?: string, named?: string) => {
    if (named) return XML_ENTITIES[named]!;
    const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    return code <= 0x10ffff ? String.fromCodePoint(code) : ref;
  });

/** Decodes one spelling at `i`, or returns undefined: [decoded text, original length]. */
function decodeAt(s: string, i: number): [string, number] | undefined {
  const c = s[i];
  if (c === '\\') {
    const e = s[i + 1];
    if (e === 'u') {
      const hex = s.slice(i + 2, i + 6);
      return hex.length === 4 && HEX.test(hex) ? [String.fromCharCode(parseInt(hex, 16)), 6] : undefined;
    }
    const simple = e === undefined ? undefined : JSON_ESCAPES[e];
    return simple === undefined ? undefined : [simple, 2];
  }
  if (c === '&') {
    // Leading zeros are legal in a character reference and make it as long as a writer likes.
    HTML_REF.lastIndex = i;
    const m = HTML_REF.exec(s);
    if (!m) return undefined;
    const named = m[3] ?? m[4];
    if (named !== undefined) return Object.hasOwn(HTML_ENTITIES, named) ? [HTML_ENTITIES[named]!, m[0].length] : undefined;
    const code = m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2]);
    return code <= 0x10ffff ? [String.fromCodePoint(code), m[0].length] : undefined;
  }
  if (c === '%') {
    // A run of %HH is one UTF-8 sequence (or several): decode the bytes together.
    const bytes: number[] = [];
    let j = i;
    while (s[j] === '%' && HEX.test(s.slice(j + 1, j + 3)) && s.slice(j + 1, j + 3).length === 2) {
      bytes.push(parseInt(s.slice(j + 1, j + 3), 16));
      j += 3;
    }
    return bytes.length ? [UTF8.decode(Uint8Array.from(bytes)), j - i] : undefined;
  }
  return undefined;
}

/** Passes of canonical decoding at most: a value URL-encoded twice (%252F) or escaped in an escape
 *  is decoded again, as a browser or a second writer would. */
const MAX_PASSES = 3;
/** What a decoded text may still hold: an escape, a reference, a percent-encoding. */
const ENCODED = /\\[u"\\/bfnrt]|&#|&[A-Za-z]|%[0-9a-fA-F]{2}/;

/** The canonical form of `s`: decoded until nothing more decodes (at most MAX_PASSES times), each
 *  character mapped back to the range of `s` it came from. */
export function canonical(s: string): CanonicalText {
  const c = decodedText(s);
  return MARK.test(c.text) ? composed(c) : c;
}

/** A combining mark (a diacritic written as a character of its own: e + U+0308 for ë), or a Hangul
 *  vowel or final consonant jamo (a syllable written decomposed, as macOS writes Korean: 가 as
 *  U+1100 U+1161). */
const MARK = /[\p{M}\u1160-\u11ff]/u;
/** A character and the combining marks (or jamo) after it, 32 at most (normalizing a
 *  run of thousands of marks as one took time square in it: 64 Ki characters, 2 s); marks past that
 *  are left as they are, in a value as in a text. */
const CLUSTER = /\P{M}[\p{M}\u1160-\u11ff]{1,32}/gu;

/** `c` with each character and its combining marks in their composed form (Unicode NFC, canonical
 *  equivalence): "Zoë" written decomposed (macOS file names, some keyboards and libraries write it so)
 *  is the same text, each composed character mapped back to the whole cluster it came from. */
function composed(c: CanonicalText): CanonicalText {
  const t = c.text;
  const parts: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  const keep = (end: number) => {
    for (; at < end; at++) { parts.push(t[at]!); from.push(c.from[at]!); to.push(c.to[at]!); }
  };
  for (const m of t.matchAll(CLUSTER)) {
    const nfc = composedCluster(m[0]);
    if (nfc === m[0]) continue;
    keep(m.index);
    const end = m.index + m[0].length;
    for (let k = 0; k < nfc.length; k++) { parts.push(nfc[k]!); from.push(c.from[m.index]!); to.push(c.to[end - 1]!); }
    at = end;
  }
  if (!parts.length) return c;
  keep(t.length);
  return { text: parts.join(''), from: Uint32Array.from(from), to: Uint32Array.from(to) };
}

/** canonical() before composing: decoded until nothing more decodes. */
function decodedText(s: string): CanonicalText {
  let c = canonicalPass(s);
  for (let pass = 1; pass < MAX_PASSES && c.text.length < s.length && ENCODED.test(c.text); pass++) {
    const next = canonicalPass(c.text);
    if (next.text === c.text) break;
    const from = new Uint32Array(next.text.length);
    const to = new Uint32Array(next.text.length);
    for (let i = 0; i < next.text.length; i++) {
      from[i] = c.from[next.from[i]!]!;
      to[i] = c.to[next.to[i]! - 1]!;
    }
    c = { text: next.text, from, to };
  }
  return c;
}

/** ASCII that decodes to itself: all but \ & % (sticky: from where the pass stands). */
const PLAIN_RUN = /[\0-\x24\x27-\x5b\x5d-\x7f]+/y;

/** One left-to-right pass of decoding. */
function canonicalPass(s: string): CanonicalText {
  const out: string[] = [];
  const from = new Uint32Array(s.length);
  const to = new Uint32Array(s.length);
  let n = 0;
  const push = (text: string, start: number, end: number) => {
    for (const ch of text) {
      // Shown as nothing: left out, its range joined to the character before it.
      if (INVISIBLE.test(ch)) { if (n > 0) to[n - 1] = end; continue; }
      // Multi-unit characters (astral) map each unit to the same original range.
      for (let k = 0; k < ch.length; k++) {
        out.push(fold(ch[k]!));
        from[n] = start;
        to[n] = end;
        n++;
      }
    }
  };
  for (let i = 0; i < s.length;) {
    // A run of ASCII other than \ & % (most of what is scanned) decodes to itself and is never
    // invisible: lower-cased whole, each character mapped to itself.
    PLAIN_RUN.lastIndex = i;
    const run = PLAIN_RUN.exec(s);
    if (run) {
      const end = i + run[0].length;
      out.push(run[0].toLowerCase());
      for (let k = i; k < end; k++, n++) { from[n] = k; to[n] = k + 1; }
      i = end;
      if (i >= s.length) break;
    }
    const decoded = decodeAt(s, i);
    if (decoded && decoded[0].length <= decoded[1]) {
      push(decoded[0], i, i + decoded[1]);
      i += decoded[1];
    } else {
      // A whole character: an astral one (U+E0101, invisible) is tested as one, not as two halves.
      const one = String.fromCodePoint(s.codePointAt(i)!);
      push(one, i, i + one.length);
      i += one.length;
    }
  }
  return { text: out.join(''), from: from.subarray(0, n), to: to.subarray(0, n) };
}

/** `text` with its letters lower-cased one code unit for one, as canonical() folds them: each character
 *  at its place (canonicalValue also leaves out and composes). */
export function foldedText(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower.includes(FINAL_SIGMA) ? lower.replaceAll(FINAL_SIGMA, SIGMA) : lower;
  let out = '';
  for (let i = 0; i < text.length; i++) out += fold(text[i]!);
  return out;
}

/** The canonical form of a secret's value: what canonical() makes of any spelling of it (letters
 *  lower-cased one code unit for one; the common case, where lower-casing keeps the length, at once). */
export function canonicalValue(value: string): string {
  let out = foldedText(value);
  // Invisible characters left out, as canonical() leaves them out of a text: a first name learned with
  // a soft hyphen in it (Ste\u00adphanie) matched no spelling of itself and was shown whole.
  if (INVISIBLE_ANY.test(out)) out = out.replace(INVISIBLE_ALL, '');
  // Folded, then composed cluster by cluster, as canonical() makes a text: composed first, a value
  // spelled as it is learned did not match itself (İ written I + U+0307 folds to i + U+0307, which
  // composes to nothing; composed first it is İ, which folds to itself).
  return MARK.test(out) ? out.replace(CLUSTER, composedCluster) : out;
}

/**
 * The base64 (and base64url) spellings of `value` as it may sit inside a longer encoded text: for
 * each of the three byte alignments, the characters fully determined by the value's own bytes.
 */
export function base64Spellings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    const stable = encoded.slice(Math.ceil((k * 4) / 3), Math.floor(((k + bytes.length) * 4) / 3));
    out.add(stable);
    out.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...out];
}

/** A token of a shown text in the standard base64 alphabet or the URL-safe one (not both), padded
 *  or not. */
const BASE64_TOKEN = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;
/** The bytes of base64 (or base64url) `token`, its first `max` characters only (whole groups of four),
 *  and whether it was cut there; undefined when it is not of one alphabet or of a length no encoder writes. */
function base64Bytes(token: string, max: number): { readonly bytes: Buffer; readonly cut: boolean } | undefined {
  if (!BASE64_TOKEN.test(token)) return undefined;
  let end = token.length;
  while (token.charCodeAt(end - 1) === 0x3d) end--;
  if (end % 4 === 1 || (end < token.length && token.length % 4 !== 0)) return undefined;
  const cut = end > max;
  // Node decodes both alphabets as 'base64'.
  return { bytes: Buffer.from(cut ? token.slice(0, max - (max % 4)) : token.slice(0, end), 'base64'), cut };
}

/**
 * The UTF-8 text `token` is the base64 (or base64url) of, or undefined when it is none: not of that
 * alphabet, of a length no encoder writes, or decoding to bytes that are no UTF-8 text. Only the first
 * `max` characters are decoded (whole groups of four; an end cut inside a character left out), so a
 * token of megabytes costs no more than one of `max` characters. `lossy`: bytes that are no UTF-8 read
 * as U+FFFD (text between binary bytes: a serialized session holding a token).
 */
export function base64Text(token: string, max: number, lossy = false): string | undefined {
  const decoded = base64Bytes(token, max);
  if (decoded === undefined) return undefined;
  const { bytes, cut } = decoded;
  const part = utf8Part(bytes, false, cut);
  if (part !== undefined) return part.toString('utf8');
  return lossy ? bytes.toString('utf8') : undefined;
}

/** The part of `bytes` (decoded from a run, or from a window of a longer one) that is UTF-8 text, less
 *  up to three bytes of a character cut at the start (`cutStart`: the window starts inside the run) or
 *  at the end (`cutEnd`); undefined when it is none, or empty. */
export function utf8Part(bytes: Buffer, cutStart: boolean, cutEnd: boolean): Buffer | undefined {
  let from = 0;
  if (cutStart) while (from < 3 && from < bytes.length && (bytes[from]! & 0xc0) === 0x80) from++;
  for (let drop = 0; drop <= (cutEnd ? 3 : 0) && drop < bytes.length - from; drop++) {
    const part = bytes.subarray(from, bytes.length - drop);
    if (isUtf8(part)) return part;
  }
  return undefined;
}

/** `s` as a reader reads it, letter case kept (canonical() folds it): escapes, references and
 *  percent-encodings decoded, as many times as canonical() decodes them, invisible characters left out. */
export function readCased(s: string): string {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let out = '';
    for (let i = 0; i < s.length;) {
      const decoded = decodeAt(s, i);
      if (decoded && decoded[0].length <= decoded[1]) { out += decoded[0]; i += decoded[1]; } else out += s[i++];
    }
    if (out === s) break;
    s = out;
  }
  return [...s].filter((ch) => !INVISIBLE.test(ch)).join('');
}

/** The spellings of a secret that are not decoded in place, canonical (lower case): its UTF-8 bytes in
 *  hex, and its characters in reverse order. */
export function secretSpellings(value: string): string[] {
  return [Buffer.from(value, 'utf8').toString('hex'), reversed(canonicalValue(value))];
}

/** `s` written backwards by characters (a surrogate pair stays a pair), as `[...s].reverse().join('')`
 *  but in one array of code units: that spread made one string per character, tens of MB for a
 *  learned value of megabytes. */
export function reversed(s: string): string {
  const n = s.length;
  const u = new Uint16Array(n);
  for (let i = 0; i < n; i++) u[n - 1 - i] = s.charCodeAt(i);
  for (let i = 0; i + 1 < n; i++) {
    if (u[i]! >= 0xdc00 && u[i]! <= 0xdfff && u[i + 1]! >= 0xd800 && u[i + 1]! <= 0xdbff) {
      [u[i], u[i + 1]] = [u[i + 1]!, u[i]!];
      i++;
    }
  }
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('utf16le');
}

/** A text with its whitespace removed (base64 as MIME writes it, broken into lines or groups), and
 *  for each remaining character its index in the original. */
export function withoutWhitespace(s: string): { readonly text: string; readonly at: Uint32Array } {
  const at = new Uint32Array(s.length);
  let out = '';
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue;
    out += ch;
    at[n++] = i;
  }
  return { text: out, at: at.subarray(0, n) };
}

/** Every index at which `needle` occurs in `haystack` (overlaps included). */
export function occurrences(haystack: string, needle: string): number[] {
  const at: number[] = [];
  if (!needle) return at;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** What shows a text (as written) is quoted-printable (RFC 2045): =XX with a letter (=3D, =2D; not a
 *  query's page=10), or = ending a line (a soft line break, in a JSON string too). */
const QP_SIGN = /=(?:[0-9A-F][A-F]|[A-F][0-9]|[ \t]*(?:\r?\n|\\r\\n|\\n))/;
const QP_SOFT = /=[ \t]*\r?\n/y;
const isHexAt = (c: CanonicalText, original: string, k: number): boolean => {
  const ch = c.text.charCodeAt(k);
  if (!((ch >= 0x30 && ch <= 0x39) || (ch >= 0x61 && ch <= 0x66))) return false;
  // An encoder writes upper-case hex: "=ab" in a form's "x=abc" is a value, not a byte.
  const o = original.charCodeAt(c.from[k]!);
  return !(o >= 0x61 && o <= 0x66);
};

/**
 * The canonical text `c` (of `original`) read as quoted-printable, as a mail reader reads it: each run
 * of =XX decoded as UTF-8 bytes, soft line breaks left out; every character still mapped to the range
 * of `original` it came from. Read from the canonical form, so a quoted-printable text inside a JSON
 * string (its line breaks escaped) is read too. Undefined when the text shows no quoted-printable.
 */
export function quotedPrintable(c: CanonicalText, original: string): CanonicalText | undefined {
  if (!QP_SIGN.test(original)) return undefined;
  const t = c.text;
  const out: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < t.length;) {
    const eq = t.indexOf('=', i);
    const plainEnd = eq < 0 ? t.length : eq;
    if (plainEnd > i) {
      out.push(t.slice(i, plainEnd));
      for (let k = i; k < plainEnd; k++) { from.push(c.from[k]!); to.push(c.to[k]!); }
      i = plainEnd;
      if (i >= t.length) break;
    }
    QP_SOFT.lastIndex = i;
    const soft = QP_SOFT.exec(t);
    if (soft) { i += soft[0].length; continue; }
    const bytes: number[] = [];
    let j = i;
    while (t[j] === '=' && isHexAt(c, original, j + 1) && isHexAt(c, original, j + 2)) {
      bytes.push(parseInt(t.slice(j + 1, j + 3), 16));
      j += 3;
    }
    if (bytes.length === 0) { out.push('='); from.push(c.from[i]!); to.push(c.to[i]!); i++; continue; }
    const decoded = canonicalValue(UTF8.decode(Uint8Array.from(bytes)));
    out.push(decoded);
    for (let k = 0; k < decoded.length; k++) { from.push(c.from[i]!); to.push(c.to[j - 1]!); }
    i = j;
  }
  return { text: out.join(''), from: Uint32Array.from(from), to: Uint32Array.from(to) };
}

/** The single separator between the groups of a number written in groups: a space, a no-break space,
 *  a dash. Not a dot or a slash: those join a decimal, an IP address, a version or a path, other
 *  numbers than the digits joined (100.01 is no postal code 10001). */
const GROUP_SEPARATOR = '[ \\u00a0-]';
/** A digit, a separator and a digit. */
const DIGIT_GROUPS = new RegExp(`[0-9]${GROUP_SEPARATOR}[0-9]`);
const GROUP_SEPARATORS = new RegExp(GROUP_SEPARATOR, 'g');
const isDigitCode = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** GROUP_SEPARATOR's characters, by code (read at every character of a text). */
const isGroupSeparator = (c: number): boolean => c === 0x20 || c === 0xa0 || c === 0x2d;

/** The canonical text `c` with every separator between two digits left out: a phone number or a
 *  postal code written in groups (+46 70 123 45 67, 753 20, 070-123 45 67) read as one number, as it
 *  is learned from a member that holds it compact (and the other way round: Redactor learns a grouped
 *  value's digits joined too). Undefined when the text has no such separator. Output work only. */
export function digitGroupsReading(c: CanonicalText): CanonicalText | undefined {
  const t = c.text;
  if (!DIGIT_GROUPS.test(t)) return undefined;
  const out: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < t.length; i++) {
    if (i > 0 && isGroupSeparator(t.charCodeAt(i)) && isDigitCode(t.charCodeAt(i - 1)) && isDigitCode(t.charCodeAt(i + 1))) continue;
    out.push(t[i]!);
    from.push(c.from[i]!);
    to.push(c.to[i]!);
  }
  return { text: out.join(''), from: Uint32Array.from(from), to: Uint32Array.from(to) };
}

/** A value that is a number written in groups (a phone number, a postal code: digits, a single
 *  separator between groups, a leading +), of MIN_GROUPED_DIGITS digits or more: its digits joined
 *  (the + kept); else undefined. */
export function joinedGroups(value: string): string | undefined {
  if (!GROUPED_NUMBER.test(value)) return undefined;
  const joined = value.replace(GROUP_SEPARATORS, '');
  return joined.replace('+', '').length >= MIN_GROUPED_DIGITS ? joined : undefined;
}
const GROUPED_NUMBER = new RegExp(`^\\+?[0-9]+(?:${GROUP_SEPARATOR}[0-9]+)+$`);
const MIN_GROUPED_DIGITS = 5;

/** Whether `t` holds a character (not a mark) that NFKC reads as others: each tested alone (the text
 *  normalized whole reorders a run of marks, in time square in it). */
function holdsCompatibilityForm(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x80) continue;
    const one = String.fromCodePoint(t.codePointAt(i)!);
    if (one.length === 2) i++;
    if (one.normalize('NFKC') !== one && !MARK.test(one)) return true;
  }
  return false;
}

/** A character beyond ASCII. */
const NOT_ASCII_CHAR = /[^\0-\x7f]/;
/** What shows a canonical text holds a spelling canonical() leaves as written: \xHH (JavaScript,
 *  Python, C), \u{H} (JavaScript), a CSS escape (\73 ), a full-width form (U+FF01..U+FF5E) or the
 *  ideographic space. */
const ESCAPED_SIGN = /\\(?:x[0-9a-f]{2}|u\{[0-9a-f]|[0-9a-f])|[\uff01-\uff5e\u3000]/;
/** An escape at a backslash: \xHH, \u{H…}, or CSS's 1 to 6 hex digits and the one whitespace that
 *  may end them (a canonical text: hex digits in lower case). */
const ESCAPE_AT = /\\(?:x([0-9a-f]{2})|u\{([0-9a-f]{1,6})\}|([0-9a-f]{1,6})(?:\r\n|[ \t\n\r\f])?)/y;

/**
 * The canonical text `c` read as a program or a style sheet reads it: \xHH, \u{H} and CSS escapes
 * decoded (a run of \xHH as UTF-8 bytes when they are UTF-8, else each as a character, as JavaScript
 * reads it), compatibility forms (full-width, mathematical, circled, ligatures: NFKC) read as the
 * characters they stand for; every character still mapped to the
 * range of the original text it came from. Undefined when the text shows none of them: a text is
 * read so only on the output path, where a learned secret may be spelled so (canonical() stays as
 * it is: the learner reads values with it).
 */
export function escapedReading(c: CanonicalText): CanonicalText | undefined {
  const t = c.text;
  const compatible = NOT_ASCII_CHAR.test(t) && holdsCompatibilityForm(t);
  if (!compatible && !ESCAPED_SIGN.test(t)) return undefined;
  const out: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const put = (text: string, start: number, end: number): void => {
    const folded = canonicalValue(text);
    for (let k = 0; k < folded.length; k++) { out.push(folded[k]!); from.push(c.from[start]!); to.push(c.to[end - 1]!); }
  };
  for (let i = 0; i < t.length;) {
    const ch = t.charCodeAt(i);
    if ((ch >= 0xff01 && ch <= 0xff5e) || ch === 0x3000) { put(ch === 0x3000 ? ' ' : String.fromCharCode(ch - 0xfee0), i, i + 1); i++; continue; }
    if (compatible && ch >= 0x80) {
      // A compatibility form (UAX #15: mathematical letters, circled or superscript ones, ligatures)
      // read as the characters it stands for, as NFKC reads it: 𝐉𝐨𝐡𝐧 as John.
      const one = String.fromCodePoint(t.codePointAt(i)!);
      const read = one.normalize('NFKC');
      if (read !== one && !MARK.test(one)) {
        // Half-width katakana's voiced marks (ｶﾞ) read as a combining mark: composed with the
        // character before, as NFKC reads the pair (ガ).
        const composed = out.length && MARK.test(read[0]!) ? (out[out.length - 1]! + read).normalize('NFC') : '';
        if (composed.length === 1) { out[out.length - 1] = composed; to[to.length - 1] = c.to[i + one.length - 1]!; } else put(read, i, i + one.length);
        i += one.length;
        continue;
      }
    }
    if (ch === 0x5c) {
      ESCAPE_AT.lastIndex = i;
      const m = ESCAPE_AT.exec(t);
      if (m?.[1] !== undefined) {
        // A run of \xHH (four characters each): its bytes read together.
        const bytes: number[] = [];
        for (let x: RegExpExecArray | null = m; x?.[1] !== undefined; ESCAPE_AT.lastIndex = i + 4 * bytes.length, x = ESCAPE_AT.exec(t)) bytes.push(parseInt(x[1]!, 16));
        const buf = Uint8Array.from(bytes);
        const end = i + 4 * bytes.length;
        if (bytes.some((b) => b >= 0x80) && isUtf8(buf)) put(UTF8.decode(buf), i, end);
        else for (let k = 0; k < bytes.length; k++) put(String.fromCharCode(bytes[k]!), i + 4 * k, i + 4 * k + 4);
        i = end;
        continue;
      }
      const hex = m?.[2] ?? m?.[3];
      const code = hex === undefined ? -1 : parseInt(hex, 16);
      if (m && code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) {
        put(String.fromCodePoint(code), i, i + m[0].length);
        i += m[0].length;
        continue;
      }
    }
    out.push(t[i]!);
    from.push(c.from[i]!);
    to.push(c.to[i]!);
    i++;
  }
  return { text: out.join(''), from: Uint32Array.from(from), to: Uint32Array.from(to) };
}

/** The value of each ASCII code in base32 (lower case: a canonical text's), -1 for a code that is none. */
const BASE32_VALUE = new Int8Array(128).fill(-1);
for (const [v, ch] of [...'abcdefghijklmnopqrstuvwxyz234567'].entries()) BASE32_VALUE[ch.charCodeAt(0)] = v;
/** Characters of a base32 token's data (less its padding) by length modulo 8 that an encoder writes. */
const BASE32_ENDS = new Set([0, 2, 4, 5, 7]);
/**
 * The UTF-8 text a base32 token (RFC 4648, in lower case: a canonical text's) is the encoding of,
 * padded or not, or undefined: a length or padding no encoder writes, bits left over that are not
 * zero, or bytes that are no UTF-8. Only the first `max` characters are decoded, as base64Text.
 */
export function base32Text(token: string, max: number): string | undefined {
  let end = token.length;
  while (token.charCodeAt(end - 1) === 0x3d) end--;
  if (!BASE32_ENDS.has(end % 8) || (end < token.length && token.length % 8 !== 0)) return undefined;
  const cut = end > max;
  // The bits past the last whole byte are zero as an encoder writes them: most words are told apart here.
  const left = (5 * end) % 8;
  if (!cut && left > 0 && (BASE32_VALUE[token.charCodeAt(end - 1) & 0x7f]! & ((1 << left) - 1)) !== 0) return undefined;
  const all = base32Bytes(token, cut ? max - (max % 8) : end);
  if (all === undefined) return undefined;
  const part = utf8Part(all, false, cut);
  return part === undefined ? undefined : UTF8.decode(part);
}

/** The bytes of the first `n` characters of base32 `token` (lower case), the bits past the last whole
 *  byte dropped; undefined for a character that is none of base32's. */
export function base32Bytes(token: string, n = token.length): Buffer | undefined {
  const all = Buffer.alloc((5 * n) >> 3);
  let bits = 0;
  let value = 0;
  for (let i = 0, b = 0; i < n; i++) {
    const v = BASE32_VALUE[token.charCodeAt(i) & 0x7f]!;
    if (v < 0 || token.charCodeAt(i) > 0x7f) return undefined;
    value = ((value << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) { bits -= 8; all[b++] = (value >>> bits) & 0xff; }
  }
  return all;
}

/**
 * The text a base64 token is the UTF-16LE encoding of (Windows' "Unicode": PowerShell's
 * -EncodedCommand, .NET's Encoding.Unicode), or undefined: not base64 as base64Text reads it, an odd
 * number of bytes, fewer than half of its code units below U+0800 (a text in CJK scripts is not read
 * so), or a code unit no text holds (half of a surrogate pair). The first `max` characters only.
 */
export function utf16Base64Text(token: string, max: number): string | undefined {
  const decoded = base64Bytes(token, max);
  if (decoded === undefined) return undefined;
  const { bytes, cut } = decoded;
  if (bytes.length % 2 !== 0 && !cut) return undefined;
  const text = utf16Text(bytes);
  return text !== undefined && text.length > 0 && !LONE_SURROGATE.test(cut ? text.slice(0, -1) : text) ? text : undefined;
}

/** The whole code units of `bytes` as UTF-16 text, little-endian (.NET's, Windows') or big-endian
 *  (Java's "UTF-16", with or without its byte-order mark), whichever most code units read as a text
 *  below U+0800 in (Latin, Greek, Cyrillic, Hebrew, Arabic: a high byte under 8); undefined when
 *  neither does (any word that looks like base64 decodes to some bytes). */
function utf16Text(bytes: Buffer): string | undefined {
  const units = bytes.length >> 1;
  if (units === 0) return undefined;
  let lowOdd = 0;
  let lowEven = 0;
  for (let k = 0; k < 2 * units; k += 2) {
    if (bytes[k + 1]! < 8) lowOdd++;
    if (bytes[k]! < 8) lowEven++;
  }
  const little = bytes[0] === 0xff && bytes[1] === 0xfe ? true : bytes[0] === 0xfe && bytes[1] === 0xff ? false
    : 2 * lowOdd >= units ? lowOdd >= lowEven : 2 * lowEven >= units ? false : undefined;
  if (little === undefined) return undefined;
  const whole = bytes.subarray(0, 2 * units);
  return little ? whole.toString('utf16le') : Buffer.from(whole).swap16().toString('utf16le');
}

/** Whether decoded bytes read as text: no control character but tab and line breaks, none that
 *  replaces a byte that is no text (U+FFFD). Garbage from a word that merely looks like an encoding
 *  (base32's letters, four-letter words in a row) seldom is. */
export function readsAsText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f || c === 0xfffd) return false;
  }
  return true;
}

/** Bytes decoded from an encoding's end read as UTF-8 text (a character cut at the end left out), or undefined. */
function utf8Text(bytes: Buffer): { readonly text: string; readonly unit: 1 } | undefined {
  for (let drop = 0; drop <= 3 && drop < bytes.length; drop++) {
    const part = bytes.subarray(0, bytes.length - drop);
    if (isUtf8(part)) {
      const text = part.toString('utf8');
      return readsAsText(text) ? { text, unit: 1 } : undefined;
    }
  }
  return undefined;
}

/** Whether a byte of text decoded from an encoding's end reads as UTF-8 text (a character cut at the
 *  end left out) or else as UTF-16 text (utf16Text); the text, or undefined. */
function bytesAsText(bytes: Buffer): { readonly text: string; readonly unit: 1 | 2 } | undefined {
  const utf8 = utf8Text(bytes);
  if (utf8) return utf8;
  const text = utf16Text(bytes);
  return text !== undefined && readsAsText(text) && !LONE_SURROGATE.test(text.slice(0, -1)) ? { text, unit: 2 } : undefined;
}

/** `decoded` (bytes as text) as a reading of canonical text `c`: each character mapped to the range of
 *  the original that its first byte's first digit came from (`at`: the canonical index of a byte's). */
function bytesReading(c: CanonicalText, decoded: { readonly text: string; readonly unit: 1 | 2 }, at: (byte: number) => number): CanonicalText {
  const text = canonicalValue(decoded.text);
  const from = new Uint32Array(text.length);
  const to = new Uint32Array(text.length).fill(c.to[c.text.length - 1]!);
  let byte = 0;
  for (let i = 0; i < text.length; i++) {
    from[i] = c.from[at(byte)]!;
    const code = decoded.text.charCodeAt(i);
    byte += decoded.unit === 2 ? 2 : code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdbff ? 4 : code >= 0xdc00 && code <= 0xdfff ? 0 : 3;
  }
  return { text, from, to };
}

const isSpaceCode = (ch: number): boolean => ch === 0x20 || ch === 0x09 || ch === 0x0a || ch === 0x0d;
/** A character of either base64 alphabet in a canonical (lower-case) text, or padding. */
const isBase64Code = (ch: number): boolean => (ch >= 0x61 && ch <= 0x7a) || (ch >= 0x30 && ch <= 0x39) || ch === 0x2b || ch === 0x2f || ch === 0x5f || ch === 0x2d || ch === 0x3d;
/** A character of base32 in a canonical (lower-case) text, or padding. */
const isBase32Code = (ch: number): boolean => (ch >= 0x61 && ch <= 0x7a) || (ch >= 0x32 && ch <= 0x37) || ch === 0x3d;
const isHexCode = (ch: number): boolean => (ch >= 0x30 && ch <= 0x39) || (ch >= 0x61 && ch <= 0x66);
const isAlnumCode = (ch: number): boolean => (ch >= 0x30 && ch <= 0x39) || (ch >= 0x61 && ch <= 0x7a);

/** Bytes read as UTF-8 as a lossy decoder reads them (a byte that starts no character as U+FFFD),
 *  with the byte each character starts at; a character the bytes' end cuts is left out. */
function lossyText(bytes: Buffer): { readonly text: string; readonly starts: number[] } {
  let text = '';
  const starts: number[] = [];
  for (let b = 0; b < bytes.length;) {
    const x = bytes[b]!;
    let n = x < 0x80 ? 1 : x >= 0xc2 && x <= 0xdf ? 2 : x >= 0xe0 && x <= 0xef ? 3 : x >= 0xf0 && x <= 0xf4 ? 4 : 0;
    if (n > 1 && b + n > bytes.length && bytes.subarray(b + 1).every((y) => y >= 0x80 && y <= 0xbf)) break;
    if (n > 1 && !(b + n <= bytes.length && isUtf8(bytes.subarray(b, b + n)))) n = 0;
    const ch = n === 0 ? '\ufffd' : bytes.subarray(b, b + n).toString('utf8');
    for (let k = 0; k < ch.length; k++) starts.push(b);
    text += ch;
    b += Math.max(n, 1);
  }
  return { text, starts };
}

/** What a hex dump writes between its bytes: a space, a colon (a key's fingerprint), a dash (.NET's
 *  BitConverter.ToString). A character class's characters (the dash last). */
export const HEX_SEPARATORS = ' :-';
/** Every separator of a hex dump, to take them out. */
export const HEX_SEPARATOR = new RegExp(`[${HEX_SEPARATORS}]`, 'g');

/**
 * The end of canonical text `c` read as a hex dump (two digits a byte, a HEX_SEPARATORS between),
 * where it ends in one of `min` bytes or more: its bytes as a lossy UTF-8 decoder reads them (text
 * between bytes that are none too), each character mapped to the range of the original its first
 * byte came from. What a cut there lets a reader decode; undefined otherwise.
 */
export function hexDumpEnd(c: CanonicalText, min: number): CanonicalText | undefined {
  const t = c.text;
  let k = t.length;
  const sep = (i: number): boolean => i >= 0 && HEX_SEPARATORS.includes(t[i]!);
  if (k > 0 && sep(k - 1)) k--;
  let start = -1;
  // Byte by byte from the end: a byte after a separator goes on, one after a letter or digit is none.
  while (k >= 2 && isHexCode(t.charCodeAt(k - 1)) && isHexCode(t.charCodeAt(k - 2))) {
    const before = k - 3;
    if (before >= 0 && !sep(before) && isAlnumCode(t.charCodeAt(before))) break;
    start = k - 2;
    if (before < 0 || !sep(before)) break;
    k = before;
  }
  if (start < 0) return undefined;
  const digits = t.slice(start).replace(HEX_SEPARATOR, '');
  const bytes = Buffer.from(digits.slice(0, digits.length - (digits.length % 2)), 'hex');
  if (bytes.length < min) return undefined;
  const { text, starts } = lossyText(bytes);
  const folded = canonicalValue(text);
  const from = Uint32Array.from(starts, (b) => c.from[start + 3 * b]!);
  return { text: folded, from, to: new Uint32Array(folded.length).fill(c.to[t.length - 1]!) };
}

/**
 * The end of canonical text `c` (of `original`) read as base64 written in pieces between whitespace
 * (groups of four, MIME or PEM lines, or one token), its letter case as written: the pieces from each
 * of the first `tries` (a word before the base64 is no piece of it), the first whose bytes read as text
 * (UTF-8 or UTF-16LE). What a cut there lets a reader decode; undefined when there is none.
 */
export function base64End(original: string, c: CanonicalText, minChars: number, tries: number): CanonicalText | undefined {
  return piecesEnd(original, c, minChars, tries, isBase64Code, 6, (joined) => bytesAsText(Buffer.from(joined, 'base64')));
}

/** base64End for base32 written in groups, in capitals (MFRG GZDF MZTW) or, as an encoder writes
 *  them, in small letters: two groups or more of one length, a multiple of four, the last no longer
 *  (mfrg gzdf mz; words of a sentence are seldom so), or any run in small letters (`anyLower`: for a
 *  reader that masks only a known secret's start). Its bytes read as UTF-8 text. */
export function base32End(original: string, c: CanonicalText, minChars: number, tries: number, anyLower = false): CanonicalText | undefined {
  return piecesEnd(original, c, minChars, tries, isBase32Code, 5, (joined, pieces) => {
    if (/[a-z]/.test(joined) && (/[A-Z]/.test(joined) || !(anyLower || encoderGroups(pieces)))) return undefined;
    const bytes = base32Bytes(joined.toLowerCase());
    return bytes === undefined ? undefined : utf8Text(bytes);
  });
}

/** Whether pieces ([from, to) each) are groups as an encoder writes them: two or more, of one length
 *  that is a multiple of four, the last no longer. */
function encoderGroups(pieces: ReadonlyArray<readonly [number, number]>): boolean {
  const length = pieces[0]![1] - pieces[0]![0];
  if (pieces.length < 2 || length % 4 !== 0) return false;
  for (let i = 1; i < pieces.length - 1; i++) if (pieces[i]![1] - pieces[i]![0] !== length) return false;
  return pieces[pieces.length - 1]![1] - pieces[pieces.length - 1]![0] <= length;
}

/** base64End's reading, of an alphabet (`isCode`, `bits` a character) and a decoding (given the
 *  pieces joined, and the pieces). */
function piecesEnd(original: string, c: CanonicalText, minChars: number, tries: number, isCode: (ch: number) => boolean, bits: number,
  decode: (joined: string, pieces: ReadonlyArray<readonly [number, number]>) => { readonly text: string; readonly unit: 1 | 2 } | undefined): CanonicalText | undefined {
  const t = c.text;
  // Pieces from the end: the last of any length, those before it of one length, a multiple of four
  // (groups, lines), and one more of any (tried as a start: it may be a word before them).
  const pieces: Array<[number, number]> = [];
  let k = t.length;
  for (;;) {
    let j = k;
    while (j > 0 && isSpaceCode(t.charCodeAt(j - 1))) j--;
    if (j === k && pieces.length > 0) break;
    let i = j;
    while (i > 0 && isCode(t.charCodeAt(i - 1))) i--;
    if (i === j) break;
    pieces.unshift([i, j]);
    k = i;
    const length = j - i;
    if (k === 0 || (pieces.length === 2 && length % 4 !== 0) || (pieces.length > 2 && length !== pieces[1]![1] - pieces[1]![0])) break;
  }
  for (let s = 0; s < pieces.length && s < tries; s++) {
    // A first piece the window's start cut may not start a group of four.
    if (s === 0 && pieces[0]![0] === 0 && c.from[0]! > 0) continue;
    const at: number[] = [];
    let joined = '';
    for (const [a, b] of pieces.slice(s)) {
      for (let q = a; q < b; q++) {
        const ch = c.to[q]! - c.from[q]! === 1 ? original[c.from[q]!]! : readCased(original.slice(c.from[q], c.to[q]));
        if (ch.length !== 1 || ch === '=') continue;
        joined += ch;
        at.push(q);
      }
    }
    if (joined.length < minChars) continue;
    const decoded = decode(joined, pieces.slice(s));
    if (decoded) return bytesReading(c, decoded, (b) => at[Math.floor((8 * b) / bits)]!);
  }
  return undefined;
}
