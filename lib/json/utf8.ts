// UTF-8 checked as bytes arrive (RFC 3629; RFC 8259 8.1: JSON exchanged between systems MUST be
// UTF-8): decoding would put U+FFFD in place of the bytes a file really holds. Node's isUtf8 checks a
// chunk natively; the byte-by-byte scan runs only to find where a bad chunk goes wrong.
import { isUtf8 } from 'node:buffer';

/** Half a surrogate pair without its other half. No UTF-8 bytes encode one (UTF-8 encodes Unicode
 *  scalar values only: Unicode 3.9 D92, RFC 3629 3), and RFC 8259 8.2 leaves a JSON string holding
 *  one unpredictable: a text holding one names no bytes. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where the first LONE_SURROGATE of `text` is, or -1. V8's isWellFormed (Node 20; not in TypeScript's
 *  ES2023 lib) answers a Latin-1 string at once and another natively, about 3.5 times as fast as the
 *  pattern: a body of megabytes is searched only when it holds one. */
export const loneSurrogateAt = (text: string): number =>
  ((text as string & { isWellFormed(): boolean }).isWellFormed() ? -1 : text.search(LONE_SURROGATE));

/** Where the first ill-formed UTF-8 sequence (RFC 3629: no overlong forms, surrogates or code points
 *  past U+10FFFF) starts, whether it is one only because the bytes end inside it, or undefined. */
export function firstIllFormed(b: Buffer): { readonly at: number; readonly cut: boolean } | undefined {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    if (c < 0x80) { i++; continue; }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (!n) return { at: i, cut: false };
    // The second byte's range narrows after E0, ED, F0 and F4 (Unicode table 3-7).
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined) return { at: i, cut: true };
      if (d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return { at: i, cut: false };
    }
    i += n + 1;
  }
  return undefined;
}

/** How many bytes at the end of `b` start a character they do not finish (0 to 3). */
export function cutAtEnd(b: Buffer): number {
  for (let k = 1; k <= Math.min(3, b.length); k++) {
    const c = b[b.length - k]!;
    if (c >= 0x80 && c <= 0xbf) continue; // a continuation byte: look further back
    const needs = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return needs > k ? k : 0;
  }
  return 0;
}

/** A stream's bytes checked chunk by chunk, a character cut by a chunk's end carried to the next
 *  (at most 3 bytes held). */
export class Utf8Stream {
  private carry = Buffer.alloc(0);

  /** Where in `b` the first ill-formed sequence starts (negative: in the bytes carried from the chunk
   *  before), or undefined when every character so far is whole and well formed. */
  next(b: Buffer): number | undefined {
    let from = 0;
    if (this.carry.length) {
      const lead = this.carry[0]!;
      const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
      const head = Buffer.concat([this.carry, b.subarray(0, size - this.carry.length)]);
      const bad = firstIllFormed(head);
      if (bad && !(bad.cut && head.length < size)) return bad.at - this.carry.length;
      from = size - this.carry.length;
      this.carry = head.length < size ? head : Buffer.alloc(0);
      if (this.carry.length) return undefined; // the chunk was shorter than the character's rest
    }
    const rest = b.subarray(from);
    const cut = cutAtEnd(rest);
    if (!isUtf8(rest.subarray(0, rest.length - cut))) return from + firstIllFormed(rest)!.at;
    this.carry = Buffer.from(rest.subarray(rest.length - cut));
    return undefined;
  }

  /** At the end of the stream: how many bytes before the end a character the stream ends inside
   *  starts, or undefined. */
  end(): number | undefined { return this.carry.length ? this.carry.length : undefined; }
}
