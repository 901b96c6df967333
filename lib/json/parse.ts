// Strict JSON reading for the harness. JSON.parse decides validity (RFC 8259); jsonc-parser's
// syntax tree supplies what JSON.parse throws away: each number's lexeme (so `42.0` is not
// mistaken for the integer 42) and keys that appear twice in one object.
import { parseTree, type Node } from 'jsonc-parser';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './depth.js';
import { index, member, ROOT } from './path.js';
import type { JsonValue } from './node.js';

export interface ParsedJson {
  readonly value: JsonValue;
  /** JSON path -> the number exactly as written. */
  readonly numbers: ReadonlyMap<string, string>;
  /** Paths of members whose key occurs more than once in its object. */
  readonly duplicateKeys: readonly string[];
}

export type JsonParseResult = { readonly ok: true; readonly json: ParsedJson } | { readonly ok: false; readonly error: string };

function collect(node: Node, path: string, text: string, numbers: Map<string, string>, duplicates: string[]): void {
  if (node.type === 'number') numbers.set(path, text.slice(node.offset, node.offset + node.length));
  else if (node.type === 'array') node.children?.forEach((c, i) => collect(c, index(path, i), text, numbers, duplicates));
  else if (node.type === 'object') {
    const seen = new Set<string>();
    for (const prop of node.children ?? []) {
      const [key, value] = prop.children ?? [];
      if (!key || !value) continue;
      const k = String(key.value);
      const p = member(path, k);
      if (seen.has(k)) duplicates.push(p);
      seen.add(k);
      collect(value, p, text, numbers, duplicates);
    }
  }
}

export function parseJson(text: string): JsonParseResult {
  // The syntax tree and the walk below recurse; JSON.parse would accept what they cannot take.
  if (nestsDeeperThan(text)) return { ok: false, error: `JSON nested deeper than ${MAX_JSON_DEPTH} levels (not read further)` };
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (e) {
    return { ok: false, error: `not valid JSON: ${(e as Error).message}` };
  }
  const numbers = new Map<string, string>();
  const duplicateKeys: string[] = [];
  const tree = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  if (tree) collect(tree, ROOT, text, numbers, duplicateKeys);
  return { ok: true, json: { value, numbers, duplicateKeys } };
}
