// The kinds of exchange checks bind to, named once: predicates over what the shared classifier says
// an exchange is, with the words the catalogue shows for each.
import type { RequestKind, RouteForm } from '../contract/classify.js';
import type { JsonOperation, Operation } from '../contract/operations.js';
import type { ExchangeView } from './exchange-view.js';

export interface KindRule {
  readonly applies: (ex: ExchangeView) => boolean;
  /** Set when `applies` reads the exchange's kind alone (kindRule made it): the same test on the kind. */
  readonly of?: (k: RequestKind) => boolean;
  /** In words, for the catalogue: which exchanges. */
  readonly judges: string;
}

/** The predicates onKind made: they read an exchange's kind and nothing else of it. */
const KIND_ONLY = new WeakSet<object>();

/** An applicability predicate over the exchange's kind alone: the engine asks it once per kind of
 *  exchange rather than once per exchange (lib/engine/run.ts, Judge). */
export function onKind(of: (k: RequestKind) => boolean): (ex: ExchangeView) => boolean {
  const applies = (ex: ExchangeView): boolean => of(ex.kind);
  KIND_ONLY.add(applies);
  return applies;
}

/** Whether `appliesTo` was made by onKind: its answer is the same for every exchange of one kind. */
export const readsKindOnly = (appliesTo: (ex: ExchangeView) => boolean): boolean => KIND_ONLY.has(appliesTo);

/** A rule over the kind alone. */
export const kindRule = (of: (k: RequestKind) => boolean, judges: string): KindRule & { readonly of: (k: RequestKind) => boolean } =>
  ({ applies: onKind(of), of, judges });

const to = (op: Operation | undefined, k: RequestKind) => k.operation === op;

/** POST of `op` on a route form, answered in `format`, with no callback. */
export const postOn = (op: Operation, form: RouteForm, words: string) =>
  kindRule((k) => to(op, k) && k.route === form && k.method === 'POST' && k.callback === undefined, words);

/** Every POST of a JSON operation answered with its record as JSON or JSONP, by either route. */
export const jsonRecordKind = kindRule(
  (k) => k.operation?.wire === 'json' && k.method === 'POST' && (k.route === 'custom' || k.route === 'reply') && k.format === 'json',
  'every POST of SupportStateUserLoginRequest or ConfirmEmailRequest answered as JSON or JSONP, by either route and any selector',
);

/** Every POST to /soap11 for ImpersonateLogoutRequest (with or without ?format=soap11). */
export const soapRecordKind = kindRule(
  (k) => k.operation?.wire === 'soap' && k.route === 'soap11' && k.method === 'POST',
  'every POST to /soap11 (with or without ?format=soap11)',
);

/** JSON-with-padding with a callback name a script can use as is. */
export const jsonpKind = (safe: boolean) => kindRule(
  (k) => k.operation?.wire === 'json' && k.method === 'POST' && k.format === 'json' && k.callback !== undefined && k.callback !== '' && k.unsafeCallback === !safe,
  safe ? 'every JSON POST with ?callback=name (a name of [A-Za-z0-9._])' : 'every JSON POST with a ?callback= name holding other characters',
);

export const optionsOn = (ops: readonly JsonOperation[], words: string) =>
  kindRule((k) => ops.some((op) => to(op, k)) && k.route === 'custom' && k.method === 'OPTIONS', words);
