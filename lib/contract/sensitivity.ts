// Which names carry secrets or personal data, and the marker that replaces their values in
// everything the harness writes: it keeps what an auditor needs (present, type, length), not the value.
import { OPERATIONS } from './operations.js';
import type { Sensitivity, Shape } from './types.js';

function collect(shape: Shape, into: Map<string, Sensitivity>): void {
  for (const f of shape.fields) {
    if (f.sensitivity) {
      into.set(f.json.toLowerCase(), f.sensitivity);
      into.set(f.soap.toLowerCase(), f.sensitivity);
    }
    const t = f.type;
    if (t.kind === 'object') collect(t.shape, into);
    if (t.kind === 'array' && t.item.kind === 'object') collect(t.item.shape, into);
    if (t.kind === 'map') collect(t.value, into);
  }
}

/** Lower-cased JSON and SOAP member names -> sensitivity, over every request and response. */
export const SENSITIVE_NAMES: ReadonlyMap<string, Sensitivity> = (() => {
  const m = new Map<string, Sensitivity>();
  for (const op of OPERATIONS) { collect(op.request, m); collect(op.response, m); }
  return m;
})();

/** «credential: string, 36 chars» */
export function marker(kind: Sensitivity | 'secret header', value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const size = typeof value === 'string' ? `, ${[...value].length} chars` : '';
  return `«${kind}: ${type}${size}»`;
}
