// The kinds of exchange checks bind to, named once: predicates over what the shared classifier says
// an exchange is, with the words the catalogue shows for each.
import type { RequestKind, RouteForm } from '../contract/classify.js';
import type { JsonOperation, Operation } from '../contract/operations.js';
import type { ExchangeView } from './exchange-view.js';

export interface KindRule {
  readonly applies: (ex: ExchangeView) => boolean;
  /** In words, for the catalogue: which exchanges. */
  readonly judges: string;
}

const to = (op: Operation | undefined, k: RequestKind) => k.operation === op;

/** POST of `op` on a route form, answered in `format`, with no callback. */
export const postOn = (op: Operation, form: RouteForm, words: string): KindRule => ({
  applies: ({ kind: k }) => to(op, k) && k.route === form && k.method === 'POST' && k.callback === undefined,
  judges: words,
});

/** Every POST of a JSON operation answered with its record as JSON or JSONP, by either route. */
export const jsonRecordKind: KindRule = {
  applies: ({ kind: k }) => k.operation?.wire === 'json' && k.method === 'POST' && (k.route === 'custom' || k.route === 'reply') && k.format === 'json',
  judges: 'every POST of SupportStateUserLoginRequest or ConfirmEmailRequest answered as JSON or JSONP, by either route and any selector',
};

/** Every POST to /soap11 for ImpersonateLogoutRequest (with or without ?format=soap11). */
export const soapRecordKind: KindRule = {
  applies: ({ kind: k }) => k.operation?.wire === 'soap' && k.route === 'soap11' && k.method === 'POST',
  judges: 'every POST to /soap11 (with or without ?format=soap11)',
};

/** JSON-with-padding with a callback name a script can use as is. */
export const jsonpKind = (safe: boolean): KindRule => ({
  applies: ({ kind: k }) => k.operation?.wire === 'json' && k.method === 'POST' && k.format === 'json' && k.callback !== undefined && k.callback !== '' && k.unsafeCallback === !safe,
  judges: safe ? 'every JSON POST with ?callback=name (a name of [A-Za-z0-9._])' : 'every JSON POST with a ?callback= name holding other characters',
});

export const optionsOn = (ops: readonly JsonOperation[], words: string): KindRule => ({
  applies: ({ kind: k }) => ops.some((op) => to(op, k)) && k.route === 'custom' && k.method === 'OPTIONS',
  judges: words,
});
