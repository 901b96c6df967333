// Everything the harness writes or prints passes through here. Checks run on real values in memory;
// outputs carry markers instead of credentials, secret header values and (unless asked) personal
// data. Two layers: by structure (members named as sensitive fields, in JSON and XML, even when the
// body is malformed), then by value (every secret learned from the run, wherever it appears).
import { parseTree, type Node } from 'jsonc-parser';
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

export class Redactor {
  private readonly scanned = new Map<string, string>(); // value -> marker
  private readonly secretHeaders = new Set(SECRET_HEADERS);

  constructor(private readonly policy: RedactionPolicy) {
    for (const s of policy.secrets) this.remember(s, 'secret header');
  }

  /** Whether a member of this sensitivity is hidden under the policy. */
  hides(kind: Sensitivity | undefined): kind is Sensitivity {
    return kind === 'credential' || (kind === 'personal' && !this.policy.showPersonalData);
  }

  private remember(value: string, kind: Sensitivity | 'secret header'): void {
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
    this.json(body, true);
    this.xml(body, true);
  }

  private json(text: string, learnOnly = false): string {
    const start = text.indexOf('{');
    if (start < 0) return text;
    const edits: { offset: number; length: number; value: string }[] = [];
    /** Every string under a node: a sensitive member holding an object or array hides them all. */
    const strings = (node: Node): string[] =>
      node.type === 'string' ? [String(node.value)] : (node.children ?? []).flatMap(strings);
    const visit = (node: Node | undefined) => {
      if (!node) return;
      if (node.type === 'property') {
        const [key, value] = node.children ?? [];
        const kind = key && this.sensitivityOf(String(key.value));
        if (kind && value && value.type !== 'null') {
          for (const s of strings(value)) this.remember(s, kind);
          const shape = value.type === 'object' ? {} : value.type === 'array' ? [] : value.value;
          edits.push({ offset: value.offset, length: value.length, value: JSON.stringify(marker(kind, shape)) });
          return;
        }
      }
      node.children?.forEach(visit);
    };
    // Error-tolerant: a truncated or malformed body (or the inside of JSONP) is still walked.
    visit(parseTree(text.slice(start), [], { allowTrailingComma: true }));
    if (learnOnly) return text;
    let out = text;
    for (const e of edits.sort((a, b) => b.offset - a.offset)) out = out.slice(0, start + e.offset) + e.value + out.slice(start + e.offset + e.length);
    return out;
  }

  private xml(text: string, learnOnly = false): string {
    if (!text.includes('<')) return text;
    // Only elements named as sensitive members are matched (so an enclosing element never hides
    // them), and whatever they hold (text, CDATA, even markup) is replaced up to their end tag.
    return text.replace(this.sensitiveElements, (whole, qname: string, local: string, attrs: string | undefined, inner: string) => {
      const kind = this.sensitivityOf(local);
      if (!kind) return whole;
      for (const piece of inner.split(/<[^>]*>|<!\[CDATA\[|\]\]>/)) this.remember(piece, kind);
      return learnOnly ? whole : `<${qname}${attrs ?? ''}>${marker(kind, inner.replace(/<!\[CDATA\[|\]\]>/g, ''))}</${qname}>`;
    });
  }

  private readonly sensitiveElements = new RegExp(
    `<((?:[A-Za-z_][\\w.-]*:)?(${[...SENSITIVE_NAMES.keys()].join('|')}))(\\s[^<>]*)?>([\\s\\S]*?)<\\/\\1\\s*>`, 'gi');

  private scan(text: string): string {
    let out = text;
    // Longest first, so a secret containing another is replaced whole.
    for (const [value, mark] of [...this.scanned].sort(([a], [b]) => b.length - a.length)) out = out.split(value).join(mark);
    return out;
  }

  /** A body or any other text: structure first, then every learned secret. */
  text(text: string): string {
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
