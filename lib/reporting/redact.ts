// Everything the harness writes or prints passes through here. Checks run on real values in memory;
// outputs carry markers instead of credentials, secret header values and (unless asked) personal
// data. Two layers: by structure (members named as sensitive fields, in JSON and XML, even when the
// body is malformed), then by value (every secret learned from the run, wherever it appears).
import { visit } from 'jsonc-parser';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/depth.js';
import { marker, SENSITIVE_NAMES } from '../contract/sensitivity.js';
import type { Sensitivity } from '../contract/types.js';

export interface RedactionPolicy {
  /** Reveal personal-data fields (local debugging only); credentials are never revealed. */
  readonly showPersonalData: boolean;
  /** Values known to be secret before the run: user-supplied header values, configured credentials. */
  readonly secrets: readonly string[];
}

/** Headers whose values are secret whoever set them. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/** Shorter values are not scanned for: replacing every "LA" or "F" would garble the report. */
const MIN_SCANNED = 4;
/** Parts of a secret header value scanned for on their own (tokens, cookie values). */
const MIN_HEADER_PART = 8;
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'digest', 'negotiate', 'token', 'apikey']);

export class Redactor {
  private readonly scanned = new Map<string, string>(); // value -> marker
  private readonly secretHeaders = new Set(SECRET_HEADERS);

  constructor(private readonly policy: RedactionPolicy) {
    for (const s of policy.secrets) {
      this.remember(s, 'secret header');
      // A target may echo only the credential part: "Bearer <token>", "session=<value>; …".
      for (const part of s.split(/[\s;,=]+/)) if (part.length >= MIN_HEADER_PART && !AUTH_SCHEMES.has(part.toLowerCase())) this.remember(part, 'secret header');
    }
  }

  /** Whether a member of this sensitivity is hidden under the policy. */
  hides(kind: Sensitivity | undefined): kind is Sensitivity {
    return kind === 'credential' || (kind === 'personal' && !this.policy.showPersonalData);
  }

  private remember(value: string, kind: Sensitivity | 'secret header'): void {
    this.sorted = undefined;
    if (value.length >= MIN_SCANNED && !this.scanned.has(value)) this.scanned.set(value, marker(kind, value));
    // JSON and XML may carry the value escaped; scan for those spellings too.
    const json = JSON.stringify(value).slice(1, -1);
    if (json !== value && json.length >= MIN_SCANNED) this.scanned.set(json, marker(kind, value));
  }

  /** Marks a header name as carrying a secret (user-supplied headers). */
  secretHeader(name: string): void {
    this.secretHeaders.add(name.toLowerCase());
  }

  private sensitivityOf(name: string): Sensitivity | undefined {
    const kind = SENSITIVE_NAMES.get(name.toLowerCase());
    return this.hides(kind) ? kind : undefined;
  }

  /** Learns the sensitive values in a body so the value scan finds them anywhere else. */
  learn(body: string): void {
    if (nestsDeeperThan(body)) return; // withheld whole wherever it is shown (text())
    this.json(body, true);
    this.xml(body, true);
  }

  /** Sensitive members, by a streaming walk (no syntax tree): a member named as sensitive has its
   *  whole value (string, number, object, array) replaced, and every string in it learned.
   *  Error-tolerant: a truncated or malformed body, or the inside of JSONP, is still walked. */
  private json(text: string, learnOnly = false): string {
    const start = text.indexOf('{');
    if (start < 0) return text;
    const body = text.slice(start);
    const edits: { offset: number; end: number; kind: Sensitivity; shape: unknown }[] = [];
    let depth = 0;
    let pending: Sensitivity | undefined; // a sensitive key was read; its value comes next
    let open: { kind: Sensitivity; offset: number; depth: number; shape: unknown } | undefined;
    const begin = (offset: number, shape: unknown) => {
      if (pending && !open) open = { kind: pending, offset, depth, shape };
      pending = undefined;
      depth++;
    };
    const end = (offset: number, length: number) => {
      depth--;
      if (open && depth === open.depth) { edits.push({ ...open, end: offset + length }); open = undefined; }
    };
    visit(body, {
      onObjectBegin: (offset) => begin(offset, {}),
      onArrayBegin: (offset) => begin(offset, []),
      onObjectEnd: end,
      onArrayEnd: end,
      onObjectProperty: (property) => { pending = open ? undefined : this.sensitivityOf(property); },
      onLiteralValue: (value, offset, length) => {
        if (open && typeof value === 'string') this.remember(value, open.kind);
        else if (pending && !open && value !== null) {
          if (typeof value === 'string') this.remember(value, pending);
          edits.push({ offset, end: offset + length, kind: pending, shape: value });
        }
        pending = undefined;
      },
    }, { allowTrailingComma: true });
    if (learnOnly) return text;
    let out = body;
    for (const e of edits.sort((x, y) => y.offset - x.offset)) out = out.slice(0, e.offset) + JSON.stringify(marker(e.kind, e.shape)) + out.slice(e.end);
    return text.slice(0, start) + out;
  }

  /** Sensitive elements, in one linear pass: each open tag named as a sensitive member, then its
   *  end tag found by search (a name with no end tag after some point has none later either, so each
   *  name is searched to the end at most once). Whatever the element holds (text, CDATA, even markup)
   *  is replaced. Regexes with a lazy body and a back-reference were quadratic on unclosed tags. */
  private xml(text: string, learnOnly = false): string {
    if (!text.includes('<')) return text;
    const lower = text.toLowerCase();
    const unclosed = new Set<string>();
    const open = new RegExp(this.sensitiveOpen.source, 'gi');
    let out = '';
    let last = 0;
    for (let m = open.exec(text); m; m = open.exec(text)) {
      const qname = m[1]!;
      const key = qname.toLowerCase();
      const kind = this.sensitivityOf(m[2]!);
      if (!kind || unclosed.has(key)) continue; // not hidden under this policy, or never closed
      const start = m.index + m[0].length;
      let close = lower.indexOf(`</${key}`, start);
      while (close >= 0 && !/^\s*>/.test(text.slice(close + 2 + key.length, close + 2 + key.length + 64))) close = lower.indexOf(`</${key}`, close + 1);
      if (close < 0) { unclosed.add(key); continue; }
      const inner = text.slice(start, close);
      for (const piece of inner.split(/<[^>]*>|<!\[CDATA\[|\]\]>/)) this.remember(piece, kind);
      out += text.slice(last, start) + marker(kind, inner.replace(/<!\[CDATA\[|\]\]>/g, ''));
      last = close;
      open.lastIndex = close;
    }
    return learnOnly ? text : out + text.slice(last);
  }

  private readonly sensitiveOpen = new RegExp(`<((?:[A-Za-z_][\\w.-]*:)?(${[...SENSITIVE_NAMES.keys()].join('|')}))(?:\\s[^<>]*)?>`, 'gi');

  private sorted: [string, string][] | undefined;

  private scan(text: string): string {
    // Longest first, so a secret containing another is replaced whole (sorted once per new secret).
    this.sorted ??= [...this.scanned].sort(([a], [b]) => b.length - a.length);
    let out = text;
    for (const [value, mark] of this.sorted) out = out.split(value).join(mark);
    return out;
  }

  /** A body or any other text: structure first, then every learned secret. A text whose structure
   *  cannot be read safely is withheld whole: nothing in it can leak. */
  text(text: string): string {
    if (nestsDeeperThan(text)) return `«withheld: ${text.length} chars nested deeper than ${MAX_JSON_DEPTH} levels»`;
    return this.scan(this.xml(this.json(text)));
  }

  /** A header value, hidden when the header carries a secret. */
  header(name: string, value: string): string {
    return this.secretHeaders.has(name.toLowerCase()) ? marker('secret header', value) : this.scan(value);
  }

  /** A single received value of a member with the given sensitivity. */
  value(value: string, kind: Sensitivity | undefined): string {
    return this.hides(kind) ? marker(kind, value) : this.scan(value);
  }
}
