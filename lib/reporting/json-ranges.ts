// Sensitive members of a JSON text, by one pass over its tokens (jsonc-parser's scanner; no syntax
// tree), tolerant of whatever a target writes: every root value (an array, objects one after another,
// the inside of JSONP), names and values in single quotes or none, truncation anywhere. A member named
// as sensitive has its whole value (string, number, bare word, object, array) as one range, with every
// string, number and word in it; a value cut off by the end of the text reaches the end.
// Also the string tokens of a text, joined: a value split across two strings is one value there;
// and the values of a JSON text, the only places a marker may stand in it (valuePieces).
import { createScanner, type SyntaxKind } from 'jsonc-parser';
import type { Sensitivity } from '../contract/types.js';
import type { KindOf, SensitiveRange } from './sensitive-ranges.js';

/** jsonc-parser's token kinds (a const enum its typings declare ambient, so spelled out here). */
const T = {
  OpenBrace: 1, CloseBrace: 2, OpenBracket: 3, CloseBracket: 4, Comma: 5, Colon: 6, NullKeyword: 7, TrueKeyword: 8,
  FalseKeyword: 9, StringLiteral: 10, NumericLiteral: 11, LineCommentTrivia: 12, BlockCommentTrivia: 13,
  LineBreakTrivia: 14, Trivia: 15, Unknown: 16, EOF: 17,
} as const satisfies Record<string, SyntaxKind>;

const isTrivia = (t: SyntaxKind) => t === T.Trivia || t === T.LineBreakTrivia || t === T.LineCommentTrivia || t === T.BlockCommentTrivia;

export function jsonRanges(text: string, kindOf: KindOf): SensitiveRange[] {
  const first = text.search(/[{[]/);
  if (first < 0) return [];
  const scanner = createScanner(text, false);
  scanner.setPosition(first);
  const out: SensitiveRange[] = [];
  const stack: number[] = [];
  let candidate: string | undefined; // a name read where a member's name goes; a colon confirms it
  let expectName = false;
  let pending: Sensitivity | undefined; // a sensitive name and its colon were read: its value is next
  let open: { kind: Sensitivity; offset: number; depth: number; shape: unknown; values: string[] } | undefined;
  for (let t = scanner.scan(); t !== T.EOF; t = scanner.scan()) {
    if (isTrivia(t)) continue;
    const offset = scanner.getTokenOffset();
    if (t === T.OpenBrace || t === T.OpenBracket) {
      if (pending && !open) open = { kind: pending, offset, depth: stack.length, shape: t === T.OpenBrace ? {} : [], values: [] };
      pending = undefined;
      stack.push(t);
      expectName = t === T.OpenBrace;
      continue;
    }
    if (t === T.CloseBrace || t === T.CloseBracket) {
      stack.pop();
      if (open && stack.length === open.depth) {
        out.push({ start: open.offset, end: offset + 1, kind: open.kind, shape: open.shape, values: open.values, spelling: 'json' });
        open = undefined;
      }
      pending = undefined;
      expectName = false;
      continue;
    }
    if (!stack.length) continue; // between roots: a JSONP callback, garbage, another root's start
    if (t === T.Comma) { expectName = stack[stack.length - 1] === T.OpenBrace; pending = undefined; candidate = undefined; continue; }
    if (t === T.Colon) {
      if (candidate !== undefined && !open) pending = kindOf(candidate);
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
    if (open) { if (learned !== undefined) open.values.push(learned); }
    else if (pending && value !== null) {
      out.push({ start: offset, end, kind: pending, shape: t === T.NumericLiteral ? 0 : value, values: learned !== undefined ? [learned] : [], spelling: 'json' });
    }
    pending = undefined;
  }
  if (open) out.push({ start: open.offset, end: text.length, kind: open.kind, shape: open.shape, values: open.values, spelling: 'json' }); // cut off inside a hidden value
  return out;
}

/** What jsonRanges learns from the value token at text[start, end) (Origin.ownValues names one), the
 *  text possibly ending inside it: a string as the scanner reads it (its characters as written when
 *  it holds no escape or line break), a number or a word (a literal cut short) as written; nothing
 *  for null, true and false. */
export function tokenValue(text: string, start: number, end: number): string | undefined {
  const to = Math.min(end, text.length);
  if (start >= to) return undefined;
  if (text.charCodeAt(start) === 0x22) {
    const inner = text.slice(start + 1, to === end ? end - 1 : to);
    if (inner.indexOf('\\') < 0 && inner.indexOf('\n') < 0 && inner.indexOf('\r') < 0) return inner;
    // A whole string JSON.parse reads is read alike by the scanner (a valid string's escapes mean one thing).
    if (to === end) { try { return JSON.parse(text.slice(start, end)) as string; } catch { /* the scanner's reading */ } }
  }
  const scanner = createScanner(text.slice(start, to), false);
  const t = scanner.scan();
  return t === T.NullKeyword || t === T.TrueKeyword || t === T.FalseKeyword ? undefined : scanner.getTokenValue();
}

/** A text's JSON strings read as one value: the contents (escapes as written) of every string token
 *  joined, and of the values only (names left out), each with the index in `text` of each character.
 *  A value written in two strings ("abc" "def", a name and its value, two members' values) reads as
 *  one in one of them. None when the text holds fewer than two strings. */
export function joinedStrings(text: string): Array<{ readonly text: string; readonly at: Uint32Array }> {
  if (text.indexOf('"') === text.lastIndexOf('"')) return [];
  const scanner = createScanner(text, false);
  const all = { text: '', at: [] as number[] };
  const values = { text: '', at: [] as number[] };
  let pending: [number, number] | undefined; // a string not yet known to be a value or a name
  let strings = 0;
  const append = (into: { text: string; at: number[] }, [start, end]: [number, number]) => {
    into.text += text.slice(start, end);
    for (let i = start; i < end; i++) into.at.push(i);
  };
  for (let t = scanner.scan(); ; t = scanner.scan()) {
    if (isTrivia(t)) continue;
    if (pending && t !== T.Colon) append(values, pending);
    pending = undefined;
    if (t === T.EOF) break;
    if (t !== T.StringLiteral) continue;
    const start = scanner.getTokenOffset() + 1;
    const end = Math.max(start, scanner.getTokenOffset() + scanner.getTokenLength() - (scanner.getTokenError() === 2 /* UnexpectedEndOfString */ ? 0 : 1));
    append(all, [start, end]);
    pending = [start, end];
    strings++;
  }
  if (strings < 2) return [];
  return [all, values].map((v) => ({ text: v.text, at: Uint32Array.from(v.at) }));
}

/** The values of a JSON text a marker may stand in: each string (its quotes included), number and
 *  literal, in text order, and the end of each array and object by where it starts. */
export interface JsonTokens {
  readonly starts: readonly number[];
  readonly ends: readonly number[];
  readonly strings: readonly boolean[];
  readonly containers: ReadonlyMap<number, number>;
}

/** The tokens of a text that is JSON (JSON.parse reads it), or undefined: only there is a shape to keep. */
export function jsonTokens(text: string): JsonTokens | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  const scanner = createScanner(text, false);
  const tokens = { starts: [] as number[], ends: [] as number[], strings: [] as boolean[], containers: new Map<number, number>() };
  const open: number[] = [];
  for (let t = scanner.scan(); t !== T.EOF; t = scanner.scan()) {
    const offset = scanner.getTokenOffset();
    if (t === T.OpenBrace || t === T.OpenBracket) open.push(offset);
    else if (t === T.CloseBrace || t === T.CloseBracket) tokens.containers.set(open.pop()!, offset + 1);
    else if (t === T.StringLiteral || t === T.NumericLiteral || t === T.TrueKeyword || t === T.FalseKeyword || t === T.NullKeyword) {
      tokens.starts.push(offset);
      tokens.ends.push(offset + scanner.getTokenLength());
      tokens.strings.push(t === T.StringLiteral);
    }
  }
  return tokens;
}

/** The index of the token that holds `offset`, or -1 (punctuation, whitespace). */
export function tokenAt(tokens: JsonTokens, offset: number): number {
  const { starts, ends } = tokens;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (offset < starts[mid]!) hi = mid - 1;
    else if (offset >= ends[mid]!) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Where a piece of a string's characters (those from `from` on) may start or end, at or next to
 *  `at`: never inside an escape or a surrogate pair, moved back to the edge of the character `at`
 *  falls in (`forward`: on past it). Read from `at` back, by the backslashes before an escape. */
function characterEdge(text: string, from: number, at: number, forward: boolean): number {
  for (let q = at - 1; q >= Math.max(from, at - 5); q--) {
    if (text.charCodeAt(q) !== 0x5c) continue;
    let r = q;
    while (r > from && text.charCodeAt(r - 1) === 0x5c) r--;
    // The second backslash of \\ (an odd number before it) starts nothing, and ends at or before `at`.
    if ((q - r) % 2 === 1) break;
    const end = q + (text[q + 1] === 'u' ? 6 : 2);
    if (end > at) return forward ? end : q;
    break;
  }
  const c = text.charCodeAt(at);
  if (at > from && c >= 0xdc00 && c <= 0xdfff && text.charCodeAt(at - 1) >= 0xd800 && text.charCodeAt(at - 1) <= 0xdbff) return forward ? at + 1 : at - 1;
  return at;
}

/**
 * The parts of text[start, end) a marker may replace without changing the JSON text's shape: within
 * each string it touches, the characters between its quotes (`scalar` false); each number or literal
 * it touches, whole (`scalar` true: a marker there is written as a string). The punctuation between
 * values is left out: a match that runs past a string's closing quote (a value read across two
 * strings, a character that shows nothing joined to the one before it) masks the characters on
 * either side, not the quote, the comma or the name between them.
 */
export function valuePieces(text: string, tokens: JsonTokens, start: number, end: number): Array<[number, number, scalar: boolean]> {
  const { starts, ends, strings } = tokens;
  const out: Array<[number, number, boolean]> = [];
  let k = tokenAt(tokens, start);
  if (k < 0) {
    // The first token after `start`.
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (starts[mid]! < start) lo = mid + 1; else hi = mid; }
    k = lo;
  }
  for (; k < starts.length && starts[k]! < end; k++) {
    const [s, e] = [starts[k]!, ends[k]!];
    if (!strings[k]) { out.push([s, e, true]); continue; }
    const from = characterEdge(text, s + 1, Math.max(start, s + 1), false);
    const to = characterEdge(text, s + 1, Math.min(end, e - 1), true);
    if (from < to) out.push([from, to, false]);
  }
  return out;
}
