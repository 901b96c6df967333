// A JSON document as the reference builds it before writing, and its writer. Numbers keep their
// lexeme so a fault can write `42.0` and a style can reorder keys; JSON.stringify can do neither.
import type { JsonValue } from './value.js';

export type JsonNode =
  | { readonly t: 'object'; readonly entries: readonly (readonly [string, JsonNode])[] }
  | { readonly t: 'array'; readonly items: readonly JsonNode[] }
  | { readonly t: 'string'; readonly value: string }
  | { readonly t: 'number'; readonly raw: string }
  | { readonly t: 'boolean'; readonly value: boolean }
  | { readonly t: 'null' };

export const jsonString = (value: string): JsonNode => ({ t: 'string', value });
export const jsonObject = (entries: readonly (readonly [string, JsonNode])[]): JsonNode => ({ t: 'object', entries });

/** Plain value -> node (numbers written as JavaScript writes them). */
export function toNode(value: JsonValue): JsonNode {
  if (value === null) return { t: 'null' };
  if (typeof value === 'string') return { t: 'string', value };
  if (typeof value === 'number') return { t: 'number', raw: JSON.stringify(value) };
  if (typeof value === 'boolean') return { t: 'boolean', value };
  if (Array.isArray(value)) return { t: 'array', items: value.map(toNode) };
  return { t: 'object', entries: Object.entries(value).map(([k, v]) => [k, toNode(v)] as const) };
}

export interface JsonWriteStyle {
  /** Spaces per level; 0 writes compact JSON as ServiceStack does. */
  readonly indent: number;
  /** Member order: as built (declaration order), reversed, or sorted by name. */
  readonly keyOrder: 'declared' | 'reversed' | 'sorted';
  /** Write every non-ASCII character as a \u escape. */
  readonly asciiOnly: boolean;
}

export const COMPACT: JsonWriteStyle = { indent: 0, keyOrder: 'declared', asciiOnly: false };

const quote = (s: string, asciiOnly: boolean): string => {
  const json = JSON.stringify(s);
  return asciiOnly ? json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
};

function order(entries: readonly (readonly [string, JsonNode])[], keyOrder: JsonWriteStyle['keyOrder']) {
  if (keyOrder === 'reversed') return [...entries].reverse();
  if (keyOrder === 'sorted') return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries;
}

export function writeJson(node: JsonNode, style: JsonWriteStyle = COMPACT, depth = 0): string {
  const pad = (d: number) => (style.indent ? `\n${' '.repeat(style.indent * d)}` : '');
  const colon = style.indent ? ': ' : ':';
  switch (node.t) {
    case 'null': return 'null';
    case 'boolean': return String(node.value);
    case 'number': return node.raw;
    case 'string': return quote(node.value, style.asciiOnly);
    case 'array':
      if (!node.items.length) return '[]';
      return `[${node.items.map((n) => pad(depth + 1) + writeJson(n, style, depth + 1)).join(',')}${pad(depth)}]`;
    case 'object': {
      const entries = order(node.entries, style.keyOrder);
      if (!entries.length) return '{}';
      const body = entries.map(([k, v]) => `${pad(depth + 1)}${quote(k, style.asciiOnly)}${colon}${writeJson(v, style, depth + 1)}`);
      return `{${body.join(',')}${pad(depth)}}`;
    }
  }
}
