// Small edits of a JSON document tree, for faults and styles. Edits reach their target even when
// the record lacks it (a null or omitted member is created), so a fault never silently does nothing.
import type { JsonNode } from '../json/node.js';

type Edit = (old: JsonNode | undefined) => JsonNode | undefined;
type ObjectNode = Extract<JsonNode, { t: 'object' }>;

const EMPTY: ObjectNode = { t: 'object', entries: [] };

/** Replaces, adds (edit returns a node for an absent member) or removes (returns undefined) the member at `path`. */
export function setMember(node: JsonNode, path: readonly string[], edit: Edit): JsonNode {
  const [key, ...rest] = path;
  if (key === undefined) return edit(node) ?? node;
  const obj: ObjectNode = node.t === 'object' ? node : EMPTY;
  const at = obj.entries.findIndex(([k]) => k === key);
  const old = at >= 0 ? obj.entries[at]![1] : undefined;
  const next = rest.length ? setMember(old?.t === 'object' ? old : EMPTY, rest, edit) : edit(old);
  const entries = [...obj.entries];
  if (next === undefined) { if (at >= 0) entries.splice(at, 1); }
  else if (at >= 0) entries[at] = [key, next];
  else entries.push([key, next]);
  return { t: 'object', entries };
}

export const renameMember = (node: JsonNode, from: string, to: string, fallback: JsonNode): JsonNode =>
  node.t !== 'object' ? node : {
    t: 'object',
    entries: node.entries.some(([k]) => k === from)
      ? node.entries.map(([k, v]) => [k === from ? to : k, v] as const)
      : [...node.entries, [to, fallback] as const],
  };

export const str = (value: string): JsonNode => ({ t: 'string', value });
export const num = (raw: string): JsonNode => ({ t: 'number', raw });
export const text = (n: JsonNode | undefined): string | undefined => (n?.t === 'string' ? n.value : n?.t === 'number' ? n.raw : undefined);
