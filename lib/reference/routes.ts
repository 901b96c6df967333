// Route table of section 4, derived from the operations. ServiceStack matches paths without
// regard to case, and lets a custom route carry a format extension (`/supportstateuser.json`).
import { impersonateLogout, JSON_OPERATIONS, replyRoute, type JsonOperation, type SoapOperation } from '../contract/operations.js';

export type Route =
  | { readonly kind: 'json'; readonly id: string; readonly op: JsonOperation; readonly reply: boolean }
  | { readonly kind: 'soap'; readonly id: string; readonly op: SoapOperation };

/** Formats a path extension or ?format= may name; anything else falls back to negotiation. */
export type Format = 'json' | 'xml' | 'soap11';
const FORMATS: readonly Format[] = ['json', 'xml', 'soap11'];
export const asFormat = (s: string | null | undefined): Format | undefined =>
  FORMATS.find((f) => f === s?.toLowerCase());

const table = new Map<string, Route>();
for (const op of JSON_OPERATIONS) {
  table.set(op.route.toLowerCase(), { kind: 'json', id: op.key, op, reply: false });
  table.set(replyRoute(op).toLowerCase(), { kind: 'json', id: `${op.key}-reply`, op, reply: true });
}
table.set(impersonateLogout.route.toLowerCase(), { kind: 'soap', id: impersonateLogout.key, op: impersonateLogout });

export function resolveRoute(pathname: string): { route: Route; extension?: Format } | undefined {
  const path = pathname.toLowerCase();
  const exact = table.get(path);
  if (exact) return { route: exact };
  const dot = path.lastIndexOf('.');
  const extension = asFormat(path.slice(dot + 1));
  const route = dot > 0 ? table.get(path.slice(0, dot)) : undefined;
  // Only custom JSON routes take an extension; /json/reply/X.json and /soap11.json are not routes.
  if (extension && route?.kind === 'json' && !route.reply) return { route, extension };
  return undefined;
}
