// Everything the harness writes or prints passes through here. Checks run on real values in memory;
// outputs carry markers instead of credentials, secret header values and (unless asked) personal
// data. Three layers:
//  1. by structure: members named as sensitive fields, in JSON and XML, even when the body is
//     malformed, have their whole value replaced (and learned);
//  2. by meaning: every secret the run knows (header values and their parts, configured values,
//     values learned from bodies, numbers included) is searched for in every spelling a target or a
//     writer can produce: JSON escapes, XML references, URL encoding, any letter case (spellings.ts),
//     and base64 of the value and of a whole header;
//  3. by fingerprint: the tokens of every learned value (see below) and every two of its words in
//     a row, from any exchange of the run, are kept as 64-bit fingerprints (fingerprints.ts), and every token of an output is looked up, so a value
//     learned from one account's answer is masked in another's at a cost that does not grow with the
//     number of accounts.
// Scopes: a run-wide redactor holds the header and configured secrets; scope() gives one exchange its
// own learned values on top (so per-account values never pile up in one searched list), sharing the
// fingerprints.
//
// What is not scanned for, and why: values shorter than MIN_SCANNED characters (replacing every "LA"
// or "true" would garble the report and point at where such values sit), parts of a header value
// shorter than MIN_PART, short secrets inside longer words (a secret under MIN_PART characters is
// matched as a word of its own), and, across exchanges, only tokens (layer 3): a learned value of
// several words is masked within its own exchange's outputs whole, and across exchanges by its
// tokens of MIN_PART characters or more and by any two of its words in a row. Layer 1 hides a named
// member's value whatever its length. A secret that is one of the interface's own words (PUBLIC_WORDS:
// "user" of /user/confirmemail) is hidden by layer 1 only. Text the harness wrote itself (the catalogue's words, probe
// titles, exchange ids) is never redacted (boundary.ts).
import { createScanner, type SyntaxKind } from 'jsonc-parser';
import { limitMessage } from '../body-limits.js';
import { CREDENTIAL_NAME_SOURCE, marker, PUBLIC_WORDS, SENSITIVE_NAMES, sensitivityOfName } from '../contract/sensitivity.js';
import type { Sensitivity } from '../contract/types.js';
import { jsonLimitPassed } from '../json/limits.js';
import type { Exchange } from '../http/exchange.js';
import type { JsonValue } from '../json/value.js';
import { FingerprintSet } from './fingerprints.js';
import { base64Spellings, canonical, canonicalValue, decodeXmlReferences, occurrences, withoutWhitespace } from './spellings.js';

export interface RedactionPolicy {
  /** Reveal personal-data fields (local debugging only); credentials are never revealed. */
  readonly showPersonalData: boolean;
  /** Values known to be secret before the run: user-supplied header values, configured credentials. */
  readonly secrets: readonly string[];
}

type Kind = Sensitivity | 'secret header';

/** Headers whose values are secret whoever set them. */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];

/** Shorter values are not searched for (see the head of this file). */
export const MIN_SCANNED = 4;
/** Parts of a longer value (a header's token, a cookie's value, a word of an address) searched for on their own. */
export const MIN_PART = 8;
/** Characters of a body an output shows at most (exchange-text.ts cuts there): learned at least that far. */
export const MAX_SHOWN_TEXT = 256 * 1024;
/** Base64 spellings shorter than this match by chance. */
const MIN_BASE64 = 8;
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'digest', 'negotiate', 'token', 'apikey']);
/** An e-mail address: a local part, @, and a domain with a dot in it. */
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
/** Tokens for layer 3: what identifiers, keys, tokens and e-mail addresses are made of. */
const TOKEN = /[\p{L}\p{N}_@+~.-]+/gu;
/** Every token of a canonical text, its leading and trailing dots, @ and dashes trimmed. */
const wordsOf = (canonicalText: string): string[] =>
  [...canonicalText.matchAll(TOKEN)].map((m) => m[0].replace(/^[.@-]+|[.@-]+$/g, '')).filter((t) => t.length > 0);
/** Two words in a row, as one fingerprint (a space is never part of a token). */
const pair = (a: string, b: string): string => `${a} ${b}`;

interface Secret {
  readonly canonical: string;
  readonly marker: string;
}

/** The values a scope searches for, by canonical form; and their base64 spellings. */
class SecretTable {
  readonly spelled = new Map<string, Secret>();
  readonly base64 = new Map<string, string>();

  add(value: string, kind: Kind): void {
    const c = canonicalValue(value);
    if (c.length < MIN_SCANNED || this.spelled.has(c) || PUBLIC_WORDS.has(c)) return;
    const mark = marker(kind, value);
    this.spelled.set(c, { canonical: c, marker: mark });
    for (const b of base64Spellings(value)) if (b.length >= MIN_BASE64) this.base64.set(b, mark);
  }

  get empty(): boolean {
    return this.spelled.size === 0;
  }
}

interface Shared {
  readonly policy: RedactionPolicy;
  readonly secretHeaders: Set<string>;
  readonly global: SecretTable;
  readonly fingerprints: FingerprintSet;
}

type Range = [start: number, end: number, marker: string];

export class Redactor {
  private readonly shared: Shared;
  private readonly local: SecretTable;

  constructor(policy: RedactionPolicy);
  constructor(policy: RedactionPolicy, shared: Shared);
  constructor(policy: RedactionPolicy, shared?: Shared) {
    this.shared = shared ?? { policy, secretHeaders: new Set(SECRET_HEADERS), global: new SecretTable(), fingerprints: new FingerprintSet() };
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
  }

  /** Fingerprints learned so far (the one part of redaction that grows with the run). */
  get fingerprintBytes(): number {
    return this.shared.fingerprints.bytes;
  }

  private remember(value: string, kind: Kind, table: SecretTable = this.local): void {
    table.add(value, kind);
    // A header value's parts are fingerprinted on their own: "session" of "session=…" is no secret.
    this.fingerprint(value, false, kind !== 'secret header');
  }

  /** A secret header value: whole, its base64 (layer 2 adds it), its parts a target may echo alone
   *  ("Bearer <token>", "session=<value>; …"), and for Basic the decoded user:password. */
  private learnHeaderValue(value: string, global: boolean): void {
    const table = global ? this.shared.global : this.local;
    this.remember(value, 'secret header', table);
    for (const part of value.split(/[\s;,=]+/)) {
      if (part.length >= MIN_PART && !AUTH_SCHEMES.has(part.toLowerCase())) this.remember(part, 'secret header', table);
    }
    const basic = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value)?.[1];
    if (basic) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      this.remember(decoded, 'secret header', table);
      for (const part of decoded.split(':')) if (part.length >= MIN_PART) this.remember(part, 'secret header', table);
    }
  }

  /** Learns everything an exchange holds: its secret-carrying headers and its bodies (as far as an
   *  output may show them). */
  learnExchange(ex: Exchange): void {
    this.learnHeaders(ex.request.headers);
    this.learn(ex.request.url);
    if (ex.request.body) this.learn(ex.request.body, MAX_SHOWN_TEXT);
    if (ex.response) {
      this.learnHeaders(ex.response.headers);
      this.learn(ex.response.body.toString('utf8'), MAX_SHOWN_TEXT);
    }
  }

  /**
   * What an exchange that will never be shown leaves behind: the fingerprints of its secrets, so that
   * they are masked wherever else they turn up. Given the body already parsed (`parsed`), its members
   * are walked as values, far cheaper than walking the text; otherwise the text is learned.
   */
  learnFingerprints(ex: Exchange, parsed?: JsonValue): void {
    for (const headers of [ex.request.headers, ex.response?.headers ?? {}]) {
      for (const [name, value] of Object.entries(headers)) if (this.secretHeaderName(name)) this.fingerprint(value, true);
    }
    // A scope of its own: what the text walk learns besides fingerprints is dropped with it, so the
    // run-wide list of spelled secrets never grows with the number of accounts.
    const text = (body: string) => this.scope().learn(body, MAX_SHOWN_TEXT);
    text(ex.request.url); // a query string's sensitive parameters
    if (ex.request.body) {
      const request = parseQuietly(ex.request.body);
      if (request !== undefined) this.fingerprintValues(request, undefined);
      else text(ex.request.body);
    }
    if (parsed !== undefined) this.fingerprintValues(parsed, undefined);
    else if (ex.response) text(ex.response.body.toString('utf8'));
  }

  private fingerprint(value: string, withParts: boolean, pairs = !withParts): void {
    const words = wordsOf(canonicalValue(value));
    const tokens = words.filter((t) => t.length >= MIN_SCANNED);
    for (const t of tokens) if ((tokens.length === 1 || withParts || t.length >= MIN_PART) && !PUBLIC_WORDS.has(t)) this.shared.fingerprints.add(t);
    // A value of several words ("Flat 9 Baker Street"), whose words are too short or too common to
    // mask alone: every two words in a row, so any two of them together are found in any output.
    if (pairs) for (let i = 1; i < words.length; i++) if (words[i - 1]!.length + words[i]!.length >= MIN_SCANNED) this.shared.fingerprints.add(pair(words[i - 1]!, words[i]!));
  }

  /** Every string and number under a member named as hidden, at any depth. */
  private fingerprintValues(value: JsonValue, hidden: Sensitivity | undefined): void {
    if (value === null || typeof value === 'boolean') return;
    if (typeof value === 'string' || typeof value === 'number') {
      if (hidden) this.fingerprint(String(value), false);
      return;
    }
    if (Array.isArray(value)) { for (const v of value) this.fingerprintValues(v, hidden); return; }
    for (const [k, v] of Object.entries(value)) this.fingerprintValues(v, hidden ?? this.sensitivityOf(k));
  }

  /** Learns the secret-carrying headers of an exchange (Set-Cookie values, echoed tokens). */
  learnHeaders(headers: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(headers)) if (this.secretHeaderName(name)) this.learnHeaderValue(value, false);
  }

  private sensitivityOf(name: string): Sensitivity | undefined {
    const kind = sensitivityOfName(name);
    return this.hides(kind) ? kind : undefined;
  }

  /** A header whose value is secret: a known one, one the user named, or one whose name says so. */
  private secretHeaderName(name: string): boolean {
    const lower = name.toLowerCase();
    return this.shared.secretHeaders.has(lower) || sensitivityOfName(lower) === 'credential';
  }

  /** Learns the sensitive values in a body so the later layers find them anywhere else. A body past
   *  the body limits is walked only as far as an output may show it (`shown` characters); what that
   *  part holds past the limits is withheld whole wherever it is shown (text()). */
  learn(body: string, shown = Infinity): void {
    const part = jsonLimitPassed(body) ? body.slice(0, shown) : body;
    if (jsonLimitPassed(part)) return;
    this.json(part, true);
    this.xml(part, true);
    this.form(part, true);
  }

  /** Sensitive parameters of a query string or a form body (name=value&…, as a client sends a
   *  recoveryToken), and "name: value" lines of a plain-text answer: replaced, and learned decoded. */
  private form(text: string, learnOnly = false): string {
    if (!text.includes('=') && !text.includes(':')) return text;
    return text.replace(FORM_PARAM, (all, lead: string, name: string, sep: string, value: string) => {
      const kind = this.sensitivityOf(safeDecode(name));
      if (!kind || !value) return all;
      const decoded = safeDecode(value.replace(/\+/g, ' '));
      this.remember(decoded, kind);
      if (decoded !== value) this.remember(value, kind);
      return learnOnly ? all : `${lead}${name}${sep}${sep === '=' ? encodeURIComponent(marker(kind, decoded)) : marker(kind, decoded)}`;
    });
  }

  /** Sensitive members, by one pass over JSON's tokens (jsonc-parser's scanner; no syntax tree),
   *  tolerant of whatever a target writes: every root value (an array, objects one after another,
   *  the inside of JSONP), names and values in single quotes or none, truncation anywhere. A member
   *  named as sensitive has its whole value (string, number, bare word, object, array) replaced, and
   *  every string, number and word in it learned; a value cut off by the end of the text is replaced
   *  to the end. */
  private json(text: string, learnOnly = false): string {
    const first = text.search(/[{[]/);
    if (first < 0) return text;
    const scanner = createScanner(text, false);
    scanner.setPosition(first);
    const edits: Range[] = [];
    const stack: number[] = [];
    let candidate: string | undefined; // a name read where a member's name goes; a colon confirms it
    let expectName = false;
    let pending: Sensitivity | undefined; // a sensitive name and its colon were read: its value is next
    let open: { kind: Sensitivity; offset: number; depth: number; shape: unknown } | undefined;
    const hide = (kind: Sensitivity, from: number, to: number, shape: unknown) => edits.push([from, to, JSON.stringify(marker(kind, shape))]);
    for (let t = scanner.scan(); t !== T.EOF; t = scanner.scan()) {
      if (t === T.Trivia || t === T.LineBreakTrivia || t === T.LineCommentTrivia || t === T.BlockCommentTrivia) continue;
      const offset = scanner.getTokenOffset();
      if (t === T.OpenBrace || t === T.OpenBracket) {
        if (pending && !open) open = { kind: pending, offset, depth: stack.length, shape: t === T.OpenBrace ? {} : [] };
        pending = undefined;
        stack.push(t);
        expectName = t === T.OpenBrace;
        continue;
      }
      if (t === T.CloseBrace || t === T.CloseBracket) {
        stack.pop();
        if (open && stack.length === open.depth) { hide(open.kind, open.offset, offset + 1, open.shape); open = undefined; }
        pending = undefined;
        expectName = false;
        continue;
      }
      if (!stack.length) continue; // between roots: a JSONP callback, garbage, another root's start
      if (t === T.Comma) { expectName = stack[stack.length - 1] === T.OpenBrace; pending = undefined; candidate = undefined; continue; }
      if (t === T.Colon) {
        if (candidate !== undefined && !open) pending = this.sensitivityOf(candidate);
        candidate = undefined;
        expectName = false;
        continue;
      }
      // A scalar: a string, a number, a literal, or a word JSON does not know (a bare or single-quoted value).
      let end = offset + scanner.getTokenLength();
      let value: string | number | boolean | null = t === T.StringLiteral ? scanner.getTokenValue()
        : t === T.NullKeyword ? null : t === T.TrueKeyword ? true : t === T.FalseKeyword ? false
          : scanner.getTokenValue();
      if (t === T.Unknown && typeof value === 'string' && value.startsWith("'")) {
        // A single-quoted string spans tokens (the scanner splits it at spaces): on to its closing quote, or the line's end.
        while (!(end - offset > 1 && text[end - 1] === "'")) {
          const n = scanner.scan();
          if (n === T.EOF || n === T.LineBreakTrivia) break;
          end = scanner.getTokenOffset() + scanner.getTokenLength();
        }
        value = text.slice(offset + 1, text[end - 1] === "'" && end - offset > 1 ? end - 1 : end);
      }
      if (expectName) { candidate = typeof value === 'string' ? value : String(value); expectName = false; continue; }
      const learned = typeof value === 'string' ? value : typeof value === 'number' || t === T.NumericLiteral ? text.slice(offset, end) : undefined;
      if (open) { if (learned !== undefined) this.remember(learned, open.kind); }
      else if (pending && value !== null) {
        if (learned !== undefined) this.remember(learned, pending);
        hide(pending, offset, end, t === T.NumericLiteral ? 0 : value);
      }
      pending = undefined;
    }
    if (open) hide(open.kind, open.offset, text.length, open.shape); // cut off inside a hidden value
    return learnOnly ? text : replaceRanges(text, edits);
  }

  /** Sensitive elements, in one linear pass: each open tag named as a sensitive member, then its
   *  end tag found by reading the markup in between (CDATA, comments, processing instructions and
   *  attribute values are skipped, so an end tag written inside them is not taken for the real one).
   *  Whatever the element holds (text, CDATA, references, even markup) is replaced, and its character
   *  data learned; an element whose end tag never comes (a cut answer) is replaced to the end. */
  private xml(text: string, learnOnly = false): string {
    if (!text.includes('<')) return text;
    const open = new RegExp(SENSITIVE_OPEN.source, 'gi');
    let out = '';
    let last = 0;
    for (let m = open.exec(text); m; m = open.exec(text)) {
      const kind = this.sensitivityOf(m[2]!);
      if (!kind || m[0].endsWith('/>')) continue; // not hidden under this policy, or empty
      const start = m.index + m[0].length;
      const close = endTag(text, start, m[1]!.toLowerCase());
      const data = characterData(text.slice(start, close ?? text.length));
      this.remember(data.whole, kind);
      for (const piece of data.pieces) this.remember(piece, kind);
      out += text.slice(last, start) + marker(kind, data.whole);
      if (close === undefined) { last = text.length; break; }
      last = close;
      open.lastIndex = close;
    }
    return learnOnly ? text : out + text.slice(last);
  }

  /** Layers 2 and 3 over any text: every known spelling of every known secret, and every token whose
   *  fingerprint was learned, replaced by its marker. */
  private scan(text: string): string {
    const { global, fingerprints } = this.shared;
    const tables = this.local === global ? [global] : [global, this.local];
    // An e-mail address is personal data wherever it turns up (an error message, a stack trace, a
    // plain-text answer), learned or not: its shape says what it is.
    const emails: Range[] = this.shared.policy.showPersonalData || !text.includes('@') ? []
      : [...text.matchAll(EMAIL)].map((m): Range => [m.index, m.index + m[0].length, marker('personal', m[0])]);
    if (tables.every((t) => t.empty) && fingerprints.size === 0) return emails.length ? replaceRanges(text, emails) : text;
    const c = canonical(text);
    let folded: string | undefined; // the text only case-folded: for secrets that contain \ & or %
    let compact: ReturnType<typeof withoutWhitespace> | undefined; // the text without whitespace: for base64 broken into groups
    const ranges: Range[] = [...emails];
    for (const table of tables) {
      for (const s of table.spelled.values()) {
        // A short secret ("user") is a word of its own, never a piece of one ("supportstateuser").
        const whole = s.canonical.length < MIN_PART;
        for (const i of occurrences(c.text, s.canonical)) if (!whole || standsAlone(c.text, i, s.canonical.length)) ranges.push([c.from[i]!, c.to[i + s.canonical.length - 1]!, s.marker]);
        if (/[\\&%]/.test(s.canonical)) {
          folded ??= canonicalValue(text);
          for (const i of occurrences(folded, s.canonical)) if (!whole || standsAlone(folded, i, s.canonical.length)) ranges.push([i, i + s.canonical.length, s.marker]);
        }
      }
      if (table.base64.size) {
        compact ??= withoutWhitespace(text);
        const { text: packed, at } = compact;
        for (const [spelling, mark] of table.base64) for (const i of occurrences(packed, spelling)) ranges.push([at[i]!, at[i + spelling.length - 1]! + 1, mark]);
      }
    }
    if (fingerprints.size) {
      let previous: { word: string; from: number } | undefined;
      for (const m of c.text.matchAll(TOKEN)) {
        const raw = m[0];
        const lead = raw.length - raw.replace(/^[.@-]+/, '').length;
        const token = raw.replace(/^[.@-]+|[.@-]+$/g, '');
        if (!token) continue;
        const from = m.index + lead;
        const to = c.to[from + token.length - 1]!;
        if (token.length >= MIN_SCANNED && fingerprints.has(token)) ranges.push([c.from[from]!, to, `«secret: ${token.length} chars»`]);
        if (previous && fingerprints.has(pair(previous.word, token))) ranges.push([c.from[previous.from]!, to, '«secret: words»']);
        previous = { word: token, from };
      }
    }
    return replaceRanges(text, ranges);
  }

  /** A body or any other text: structure first, then every learned secret. A text past the body
   *  limits cannot be walked safely, so it is withheld whole: nothing in it can leak. */
  text(text: string): string {
    const passed = jsonLimitPassed(text);
    if (passed) return `«withheld: ${text.length} characters; the text ${limitMessage(passed)}»`;
    return this.scan(this.form(this.xml(this.json(text))));
  }

  /** A header value, hidden when the header carries a secret. */
  header(name: string, value: string): string {
    return this.secretHeaderName(name) ? marker('secret header', value) : this.scan(value);
  }

  /** A single received value of a member with the given sensitivity. */
  /** `typed`: the value as a JSON value of its type, when `value` is only its text (a marker then
   *  says «personal: null» or «…: number», not the length of the text). */
  value(value: string, kind: Sensitivity | undefined, typed: unknown = value): string {
    return this.hides(kind) ? marker(kind, typed) : this.scan(value);
  }

  /** A string that is not a body (a message, a path, a title): layers 2 and 3 only. */
  line(value: string): string {
    return this.scan(value);
  }
}

const WORD = /[\p{L}\p{N}_]/u;
/** Whether the `length` characters at `i` are not part of a longer word. */
const standsAlone = (text: string, i: number, length: number): boolean =>
  !(i > 0 && WORD.test(text[i - 1]!)) && !(i + length < text.length && WORD.test(text[i + length]!));

/** A small JSON text (a request body) as a value, or undefined when it is not JSON within the limits. */
function parseQuietly(text: string): JsonValue | undefined {
  if (text.length > 64 * 1024 || jsonLimitPassed(text)) return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** jsonc-parser's token kinds (a const enum its typings declare ambient, so spelled out here). */
const T = {
  OpenBrace: 1, CloseBrace: 2, OpenBracket: 3, CloseBracket: 4, Comma: 5, Colon: 6, NullKeyword: 7, TrueKeyword: 8,
  FalseKeyword: 9, StringLiteral: 10, NumericLiteral: 11, LineCommentTrivia: 12, BlockCommentTrivia: 13,
  LineBreakTrivia: 14, Trivia: 15, Unknown: 16, EOF: 17,
} as const satisfies Record<string, SyntaxKind>;

/** A start tag of a sensitive member, any prefix, attribute values in either quote (which may hold < and >). */
const SENSITIVE_OPEN = new RegExp(`<((?:[A-Za-z_][\\w.-]*:)?(${[...SENSITIVE_NAMES.keys()].join('|')}|${CREDENTIAL_NAME_SOURCE}))(?:\\s(?:[^<>"']|"[^"]*"|'[^']*')*)?>`, 'gi');

/** Where the end tag of an element named `qname` (lower case) starts, reading the markup from `from`
 *  (just past its start tag): nested elements of the same name are counted, and CDATA, comments,
 *  processing instructions and quoted attribute values are skipped. Undefined when none comes. */
function endTag(text: string, from: number, qname: string): number | undefined {
  let depth = 0;
  for (let i = text.indexOf('<', from); i >= 0; i = text.indexOf('<', i)) {
    const skipTo = (terminator: string, after: number) => { const e = text.indexOf(terminator, after); return e < 0 ? -1 : e + terminator.length; };
    let next: number;
    if (text.startsWith('<![CDATA[', i)) next = skipTo(']]>', i + 9);
    else if (text.startsWith('<!--', i)) next = skipTo('-->', i + 4);
    else if (text.startsWith('<?', i) || text.startsWith('<!', i)) next = skipTo('>', i + 2);
    else {
      const closing = text[i + 1] === '/';
      const nameAt = i + (closing ? 2 : 1);
      const name = /^[^\s/>]+/.exec(text.slice(nameAt, nameAt + qname.length + 1))?.[0]?.toLowerCase();
      // The tag's end: the first > outside a quoted attribute value.
      let j = nameAt;
      let quote: string | undefined;
      for (; j < text.length; j++) {
        const c = text[j]!;
        if (quote) { if (c === quote) quote = undefined; } else if (c === '"' || c === "'") quote = c; else if (c === '>') break;
      }
      if (j >= text.length) return undefined;
      if (name === qname) {
        if (closing) { if (depth === 0) return i; depth--; } else if (text[j - 1] !== '/') depth++;
      }
      next = j + 1;
    }
    if (next < 0) return undefined;
    i = next;
  }
  return undefined;
}

/** An element's inner markup as character data: CDATA sections unwrapped, references decoded, tags
 *  dropped; the whole, and each piece between tags. */
function characterData(inner: string): { whole: string; pieces: string[] } {
  const pieces: string[] = [];
  for (let i = 0; i < inner.length;) {
    if (inner.startsWith('<![CDATA[', i)) {
      const end = inner.indexOf(']]>', i + 9);
      pieces.push(inner.slice(i + 9, end < 0 ? inner.length : end));
      i = end < 0 ? inner.length : end + 3;
    } else if (inner.startsWith('<!--', i)) {
      const end = inner.indexOf('-->', i + 4);
      i = end < 0 ? inner.length : end + 3;
    } else if (inner[i] === '<') {
      const end = inner.indexOf('>', i);
      i = end < 0 ? inner.length : end + 1;
    } else {
      const end = inner.indexOf('<', i);
      pieces.push(decodeXmlReferences(inner.slice(i, end < 0 ? inner.length : end)));
      i = end < 0 ? inner.length : end;
    }
  }
  return { whole: pieces.join(''), pieces: pieces.filter((p) => p.trim()) };
}

/** Replaces each range by its marker; overlapping ranges become one (the longest one's marker). */
function replaceRanges(text: string, ranges: Range[]): string {
  if (!ranges.length) return text;
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Range[] = [];
  for (const r of ranges) {
    const top = merged[merged.length - 1];
    if (top && r[0] < top[1]) {
      if (r[1] - r[0] > top[1] - top[0]) top[2] = r[2];
      top[1] = Math.max(top[1], r[1]);
    } else merged.push([...r]);
  }
  let out = '';
  let at = 0;
  for (const [start, end, mark] of merged) {
    out += text.slice(at, start) + mark;
    at = end;
  }
  return out + text.slice(at);
}

/** name=value in a query string or a form body, the name one of the sensitive ones. */
const FORM_PARAM = new RegExp(`(^|[?&;\\s])(${[...SENSITIVE_NAMES.keys()].join('|')}|${CREDENTIAL_NAME_SOURCE})(=|[ \\t]*:[ \\t]*)([^&#\\s]*)`, 'gi');
const safeDecode = (s: string): string => { try { return decodeURIComponent(s); } catch { return s; } };
