// Whether two parsed JSON values are the same, as the JSON parser tests compare them.
import type { JsonValue } from '../../lib/json/value.js';

/** The same value: types, numbers by Object.is (-0), arrays, and objects with their keys in order. */
export function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as JsonValue[]).length && a.every((x, i) => sameJson(x, (b as JsonValue[])[i]!));
  const [ka, kb] = [Object.keys(a), Object.keys(b)];
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameJson((a as Record<string, JsonValue>)[k]!, (b as Record<string, JsonValue>)[k]!))
    && Object.getPrototypeOf(a) === Object.getPrototypeOf(b);
}
