// Strict JSON reading for the harness. JSON.parse decides validity (RFC 8259); jsonc-parser's
// streaming visitor supplies what JSON.parse throws away, without building a syntax tree (which for
// a body of millions of numbers cost hundreds of megabytes): the lexeme of every number NOT written
// as a plain integer literal (so `42.0` is not mistaken for the integer 42) or too long for a double
// to keep (9007199254740993 parses to ...992), and keys that appear twice in one object.
import { parse as parseTolerantly, parseTree, visit, type JSONPath, type Node, type ParseError } from 'jsonc-parser';
import { limitMessage } from '../body-limits.js';
import { jsonLimitPassed, measureJson } from './limits.js';
import { index, member, ROOT } from './path.js';
import { NOT_PLAIN, plainJsonBytes, plainJsonListed, type PlainRead } from './plain-json.js';
import type { JsonObject, JsonValue } from './value.js';

/** A JSON number written as an integer literal: no fraction, no exponent (RFC 8259 grammar). */
export const INTEGER_LEXEME = /^-?(0|[1-9]\d*)$/;

export interface ParsedJson {
  readonly value: JsonValue;
  /** JSON path -> the number exactly as written, for numbers that are not plain integer literals or
   *  that a double does not keep exactly (a number absent from this map is its parsed value). */
  readonly numbers: ReadonlyMap<string, string>;
  /** Paths of members whose key occurs more than once in its object. */
  readonly duplicateKeys: readonly string[];
  /** When a key repeats: the value as a reader that keeps each key's first occurrence reads it
   *  (JSON.parse, and `value`, keep the last). */
  readonly firstWins?: JsonValue;
  /** Large objects of `value` with their names as Object.keys lists them, listed as they were read
   *  (the plain path's; see ExchangeView.keysOf). */
  readonly listed?: ReadonlyMap<JsonObject, readonly string[]>;
  /** The values of those objects, in the order of `listed` (ExchangeView.valuesOf). */
  readonly listedValues?: ReadonlyMap<JsonObject, readonly JsonValue[]>;
}

export type JsonParseResult = { readonly ok: true; readonly json: ParsedJson } | { readonly ok: false; readonly error: string };

export const pathOf = (segments: JSONPath): string =>
  segments.reduce<string>((p, s) => (typeof s === 'number' ? index(p, s) : member(p, s)), ROOT);

/** Whether every object of `value`, in document order, has as many keys as the text gave it members
 *  (a repeated key leaves its object with fewer). */
function sameMemberCounts(value: JsonValue, counts: readonly number[]): boolean {
  let next = 0;
  const walk = (v: JsonValue): boolean => {
    if (v === null || typeof v !== 'object') return true;
    if (Array.isArray(v)) return v.every(walk);
    const keys = Object.keys(v);
    if (counts[next++] !== keys.length) return false;
    return keys.every((k) => walk(v[k]!));
  };
  return walk(value) && next === counts.length;
}

/** Why JSON.parse refused a text, in words that never quote it: V8's message quotes a stretch of the
 *  input (and names the offending character), and that stretch can be a cut-off secret no redaction
 *  layer recognises. The kind of error, and its offset (V8's, or the first jsonc-parser finds). */
export function jsonSyntaxError(e: unknown, text: string): string {
  const message = e instanceof Error ? e.message : String(e);
  // V8 says where as "in JSON at position N", or "after JSON at position N" past a whole value: said once, as the offset.
  const kind = /^Unexpected token/.test(message) ? 'Unexpected character' : message.replace(/ (?:in JSON )?at position \d+.*$/s, '').replace(/, ".*$/s, '').slice(0, 80);
  let at: number | undefined = Number(/at position (\d+)/.exec(message)?.[1] ?? NaN);
  if (Number.isNaN(at)) {
    const errors: ParseError[] = [];
    // jsonc-parser recurses: a text nested past the depth limit (unclosed, so V8 gave no position) is not located.
    try {
      if (text.length <= MAX_LOCATED && jsonLimitPassed(text) === undefined) parseTolerantly(text, errors, { disallowComments: true, allowTrailingComma: false });
    } catch {
      // out of stack all the same: said without an offset
    }
    at = errors[0]?.offset;
  }
  return at === undefined ? kind : `${kind} at offset ${at}`;
}

/** Texts longer than this are not parsed a second time only to locate an error. */
const MAX_LOCATED = 1024 * 1024;

/** Texts longer than this are not tried on the plain path (every answer of the interface is far
 *  shorter; JSON.parse's native speed matters more for a large body than what it keeps). */
const MAX_PLAIN = 256 * 1024;

export function parseJson(text: string): JsonParseResult {
  // A plain text (plain-json.ts) is read and measured in one pass: nothing is dropped that the checks need.
  const plain = text.length <= MAX_PLAIN ? plainJsonListed(text) : NOT_PLAIN;
  if (plain !== NOT_PLAIN) return { ok: true, json: parsedPlain(plain) };
  return parseJsonSlowly(text);
}

/** parseJson of the UTF-8 text of `bytes` when the plain path reads it from the bytes (see
 *  plainJsonBytes), else undefined: then the text is decoded and given to parseJson. */
export function parseJsonBytes(bytes: Buffer): ParsedJson | undefined {
  const plain = bytes.length <= MAX_PLAIN ? plainJsonBytes(bytes) : NOT_PLAIN;
  return plain === NOT_PLAIN ? undefined : parsedPlain(plain);
}

const parsedPlain = (plain: Exclude<PlainRead, typeof NOT_PLAIN>): ParsedJson =>
  ({ value: plain.value, numbers: new Map(), duplicateKeys: [], ...(plain.listed ? { listed: plain.listed, listedValues: plain.listedValues } : {}) });

/** parseJson without the plain path: measured, then JSON.parse (and the visitor for lexemes and
 *  repeated keys); the plain path's yardstick in test/plain-json.test.ts. */
export function parseJsonSlowly(text: string): JsonParseResult {
  // Measured before anything is built: JSON.parse of a million tiny members, or the visitor on deep
  // nesting (it recurses), would cost far more than the text itself.
  const shape = measureJson(text);
  if (shape.limit) return { ok: false, error: `JSON that ${limitMessage(shape.limit)}` };
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (e) {
    return { ok: false, error: `not valid JSON: ${jsonSyntaxError(e, text)}` };
  }
  // The usual answer has neither an inexact number nor a repeated key: then nothing JSON.parse
  // dropped matters, and the text need not be walked again (the walk costs as much as the parse).
  if (!shape.inexactNumber && sameMemberCounts(value, shape.memberCounts)) return { ok: true, json: { value, numbers: new Map(), duplicateKeys: [] } };
  const numbers = new Map<string, string>();
  const duplicateKeys: string[] = [];
  const keys: Set<string>[] = [];
  visit(text, {
    onObjectBegin: () => { keys.push(new Set()); },
    onObjectEnd: () => { keys.pop(); },
    onObjectProperty: (property, _offset, _length, _line, _column, path) => {
      const seen = keys[keys.length - 1];
      if (seen?.has(property)) duplicateKeys.push(member(pathOf(path()), property));
      seen?.add(property);
    },
    onLiteralValue: (v, offset, length, _line, _column, path) => {
      if (typeof v !== 'number') return;
      const lexeme = text.slice(offset, offset + length);
      if (!INTEGER_LEXEME.test(lexeme) || !Number.isSafeInteger(v)) numbers.set(pathOf(path()), lexeme);
    },
  }, { disallowComments: true, allowTrailingComma: false });
  if (!duplicateKeys.length) return { ok: true, json: { value, numbers, duplicateKeys } };
  const tree = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  return { ok: true, json: { value, numbers, duplicateKeys, ...(tree ? { firstWins: firstValue(tree) } : {}) } };
}

/** A node's value, each object's repeated key read at its first occurrence (the text is valid JSON,
 *  measured: its depth is bounded). */
function firstValue(node: Node): JsonValue {
  if (node.type === 'array') return (node.children ?? []).map(firstValue);
  if (node.type !== 'object') return node.value as JsonValue;
  const out: JsonObject = {};
  for (const property of node.children ?? []) {
    const [key, v] = property.children ?? [];
    if (key && v && !Object.hasOwn(out, key.value as string)) Object.defineProperty(out, key.value as string, { value: firstValue(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
