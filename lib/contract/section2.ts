// Every record of interface.md section 2 and every contract nested in one, each once, in the order
// first met: what the C# and TypeScript exports declare.
import { OPERATIONS } from './operations.js';
import type { Shape } from './types.js';

export function section2Shapes(): Shape[] {
  const seen = new Map<string, Shape>();
  const visit = (s: Shape) => {
    if (seen.has(s.name)) return;
    seen.set(s.name, s);
    for (const f of s.fields) {
      const t = f.type.kind === 'array' ? f.type.item : f.type;
      if (t.kind === 'object') visit(t.shape);
      if (t.kind === 'map') visit(t.value);
    }
  };
  for (const op of OPERATIONS) [op.request, op.response].forEach(visit);
  return [...seen.values()];
}
