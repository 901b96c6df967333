// Small edits of a JSON document tree, for faults and styles. An edit reaches its member even when
// the record lacks it (the member is created), so a fault never silently does nothing. Where a parent
// object itself is null or absent (a population record may hold enrollmentInfo: null), `fill` makes a
// whole, valid parent first: a half-filled one would break other rules than the fault's own.
import type { JsonNode } from '../json/write.js';

type Edit = (old: JsonNode | undefined) => JsonNode | undefined;
type ObjectNode = Extract<JsonNode, { t: 'object' }>;

/** A whole, valid object for the parent at `path` (its members from the root), when it is missing. */
export type Fill = (path: readonly string[]) => JsonNode | undefined;

/** Replaces, adds (edit returns a node for an absent member) or removes (returns undefined) the member
 *  at `path`. A missing parent is made by `fill`; without one (or when it has none) the node is left. */
export function setMember(node: JsonNode, path: readonly string[], edit: Edit, fill?: Fill, parents: readonly string[] = []): JsonNode {
  const [key, ...rest] = path;
  if (key === undefined) return edit(node) ?? node;
  if (node.t !== 'object') return node;
  const obj: ObjectNode = node;
  const at = obj.entries.findIndex(([k]) => k === key);
  const found = at >= 0 ? obj.entries[at]![1] : undefined;
  const old = rest.length && found?.t !== 'object' ? fill?.([...parents, key]) : found;
  if (rest.length && old?.t !== 'object') return node;
  const next = rest.length ? setMember(old!, rest, edit, fill, [...parents, key]) : edit(old);
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
