// What a request is, read from its method, path, query and headers alone: the one place routes,
// selectors and content negotiation of section 4 are parsed. The reference routes with it; the
// harness classifies every exchange with it, whatever brought the exchange into the run (a probe, an
// account, a recording, live traffic, a generated input), and checks bind to what it returns.
import { createHash } from 'node:crypto';
import Negotiator from 'negotiator';
import { FORMATS, JSON_MEDIA_TYPE, OPERATIONS, replyRoute, type JsonOperation, type Operation, type SoapOperation } from './operations.js';

/** How the operation was reached: its custom route, ServiceStack's /json/reply/{Request}, or /soap11. */
export type RouteForm = 'custom' | 'reply' | 'soap11';

/** What chose the answer's format: a path extension, a ?format= query, or nothing (negotiation). */
export type Selector = 'none' | 'extension' | 'query';

/** Formats a path extension or ?format= may name (ServiceStack's); others fall back to negotiation. */
export type Format = 'json' | 'xml' | 'soap11';
const FORMAT_NAMES: readonly Format[] = ['json', 'xml', 'soap11'];
export const formatNamed = (s: string | null | undefined): Format | undefined => FORMAT_NAMES.find((f) => f === s?.toLowerCase());

export interface RequestKind {
  /** Upper-case method: what checks compare. */
  readonly method: string;
  /** The method as the request wrote it: what a report shows (methods are case-sensitive, RFC 9110 9.1). */
  readonly methodAsSent: string;
  /** The operation, or undefined: the request is not to this interface. */
  readonly operation?: Operation;
  readonly route?: RouteForm;
  /** The path before the route ('' when the interface is served at the root). */
  readonly basePath?: string;
  readonly selector: Selector;
  /** The format the selector names (for 'extension' and 'query'). */
  readonly selected?: Format;
  /** The format Accept alone would choose (ServiceStack: XML when it prefers XML, else JSON). */
  readonly negotiated: Format;
  /** The format the answer must have, route and selectors applied. */
  readonly format: Format;
  /** The ?callback= value, as sent. */
  readonly callback?: string;
  /** A JSON answer wrapped in the callback (JSON-with-padding). */
  readonly jsonp: boolean;
  /** The callback holds a character outside [A-Za-z0-9._] (what ServiceStack's SafeVarRef replaces). */
  readonly unsafeCallback: boolean;
  readonly accept?: string;
  readonly contentType?: string;
  readonly soapAction?: string;
}

export interface ClassifiedRequest {
  readonly method: string;
  /** Path and query (or a whole URL; only its path and query are read). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** A route's path segments (lower case) -> operation and form; extensions are looked for on custom routes only. */
interface RouteEntry { readonly segments: readonly string[]; readonly operation: Operation; readonly form: RouteForm }
const segmentsOf = (route: string): string[] => route.toLowerCase().split('/').filter((s) => s !== '');
const ROUTES: readonly RouteEntry[] = OPERATIONS.flatMap((op): RouteEntry[] =>
  op.wire === 'json'
    ? [{ segments: segmentsOf(op.route), operation: op, form: 'custom' }, { segments: segmentsOf(replyRoute(op)), operation: op, form: 'reply' }]
    : [{ segments: segmentsOf(op.route), operation: op, form: 'soap11' }]);

/** The characters of a safe callback name (what ServiceStack's SafeVarRef keeps). */
export const SAFE_CALLBACK_CHAR = '[A-Za-z0-9._]';
const SAFE_CALLBACK = new RegExp(`^${SAFE_CALLBACK_CHAR}+$`);

/** A header by its lower-case name; names in other cases (a recording may keep them) are looked for
 *  only when the lower-case one is absent and some name is not lower case. */
const headerOf = (headers: ClassifiedRequest['headers'], name: string): string | undefined => {
  let value = headers[name];
  if (value === undefined) for (const k in headers) if (k !== name && k.toLowerCase() === name) { value = headers[k]; break; }
  return Array.isArray(value) ? value.join(', ') : (value as string | undefined);
};

/** Bounded memo: clients repeat the same few Accept values, and Negotiator is not free. */
const negotiations = new Map<string, Format>();
export function negotiate(accept: string | undefined): Format {
  const key = accept ?? '';
  let hit = negotiations.get(key);
  if (!hit) {
    const best = new Negotiator({ headers: { accept: accept ?? '*/*' } }).mediaType([JSON_MEDIA_TYPE, 'application/xml', 'text/xml']);
    hit = best === 'application/xml' || best === 'text/xml' ? 'xml' : 'json';
    if (negotiations.size < 256) negotiations.set(key, hit);
  }
  return hit;
}

/** A path segment as ServiceStack on ASP.NET Core matches it: Kestrel decodes %XX in the path but
 *  %2F (observed on .NET 10: `/%73upportstateuser` is served as `/supportstateuser`), and RestPath
 *  lower-cases it. Only ASCII escapes are decoded: routes are ASCII, so a segment holding another
 *  character matches none either way. */
const decodedSegment = (segment: string): string =>
  (segment.includes('%') ? segment.replace(/%([0-7][0-9A-Fa-f])/g, (escape, hex: string) => (hex === '2F' || hex === '2f' ? escape : String.fromCharCode(parseInt(hex, 16)))) : segment).toLowerCase();

/** Whether `parts` ends with `route`, the last part read as `last` (a part without its extension). */
function endsWithRoute(parts: readonly string[], route: readonly string[], last: string): boolean {
  const from = parts.length - route.length;
  if (from < 0) return false;
  for (let i = 0; i < route.length - 1; i++) if (parts[from + i] !== route[i]) return false;
  return last === route[route.length - 1];
}

/** The route a path ends with, matched as ServiceStack matches it (RestPath.GetPathPartsForMatching:
 *  lower case, split on '/', empty segments dropped, so `/supportstateuser/` and `//supportstateuser`
 *  are the route too) on a path Kestrel decoded (decodedSegment). A custom route may carry a format
 *  extension (/supportstateuser.json). Whatever precedes the route, its trailing slashes dropped, is
 *  the base path, as sent. */
function routeOf(pathname: string): { operation: Operation; form: RouteForm; basePath: string; extension?: Format } | undefined {
  const parts: string[] = [];
  const starts: number[] = [];
  for (let at = 0; at <= pathname.length;) {
    let end = pathname.indexOf('/', at);
    if (end < 0) end = pathname.length;
    if (end > at) { parts.push(decodedSegment(pathname.slice(at, end))); starts.push(at); }
    at = end + 1;
  }
  if (!parts.length) return undefined;
  const basePath = (count: number): string => pathname.slice(0, starts[parts.length - count]).replace(/\/+$/, '');
  const last = parts[parts.length - 1]!;
  for (const r of ROUTES) {
    if (endsWithRoute(parts, r.segments, last)) return { operation: r.operation, form: r.form, basePath: basePath(r.segments.length) };
  }
  // ServiceStack reads an extension off the path's end (RestHandler): after a trailing slash there is none.
  const dot = pathname.endsWith('/') ? -1 : last.lastIndexOf('.');
  const extension = dot >= 0 ? formatNamed(last.slice(dot + 1)) : undefined;
  if (!extension) return undefined;
  const bare = last.slice(0, dot);
  for (const r of ROUTES) {
    // Only custom JSON routes take an extension; /json/reply/X.json and /soap11.json are not routes.
    if (r.form === 'custom' && endsWithRoute(parts, r.segments, bare)) return { operation: r.operation, form: r.form, basePath: basePath(r.segments.length), extension };
  }
  return undefined;
}

/** Clients repeat the same few requests (one route, one Accept, account after account): the kinds
 *  are kept for the last distinct ones, so classifying costs a lookup, not a URL parse. */
const KINDS_KEPT = 1024;
const KEY_KEPT_LENGTH = 4096;
const kinds = new Map<string, RequestKind>();

export function classify(request: ClassifiedRequest): RequestKind {
  const h = request.headers;
  const key = `${request.method}\0${request.url}\0${headerOf(h, 'accept') ?? ''}\0${headerOf(h, 'content-type') ?? ''}\0${headerOf(h, 'soapaction') ?? '\u0001'}`;
  let kind = kinds.get(key);
  if (!kind) {
    kind = classifyAnew(request);
    // A long key is not kept: a thousand recorded URLs of a megabyte would be held here.
    if (key.length > KEY_KEPT_LENGTH) return kind;
    if (kinds.size >= KINDS_KEPT) kinds.clear();
    kinds.set(key, kind);
  }
  return kind;
}

/** The URL a server at `base` reads a request-target as, the way classify reads one: an
 *  origin-form target ("/path?query", "//path" too: RFC 9112 3.2.1 absolute-path) is `base` and the
 *  target as sent; an absolute-form one ("http://host/path", RFC 9112 3.2.2) or anything else is the
 *  URL it resolves to. A server that answers what classify reads, and a judge that judges
 *  `requestTargetUrl` of the same target, then name the same operation. */
export function requestTargetUrl(base: string, target: string): string {
  if (target.startsWith('/')) return `${base}${target}`;
  try {
    return new URL(target, base).href;
  } catch {
    return `${base}${target}`;
  }
}

/** A name as ASP.NET Core compares query names (ordinal, ignoring case): A-Z as a-z, nothing else
 *  folded (the Kelvin sign is no k there, though JavaScript lower-cases it to one). */
const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));

/** A query parameter as ServiceStack reads it on ASP.NET Core, whose Request.Query it wraps (observed
 *  on .NET 10): its name percent-decoded and matched without regard to case (`?FORMAT=xml`,
 *  `?%66ormat=xml`, `?CallBack=cb`), and the values of a name given more than once joined by commas,
 *  empty ones left out (`?format=xml&format=json` reads `xml,json`, which names no format; with
 *  `?format=&format=xml` it is `xml`). '' for a name given only empty, null for one not given. Only a
 *  parameter whose name is as long as `name` up to three times as long (a %XX spells one character
 *  in three) is decoded: parsed whole, a recorded query of 9 MB held 150 MB of decoded parameters. */
function queryValue(url: URL, name: string): string | null {
  const q = url.search;
  let found = false;
  const values: string[] = [];
  for (let from = 1; from < q.length;) {
    const amp = q.indexOf('&', from);
    const to = amp < 0 ? q.length : amp;
    const eq = q.indexOf('=', from);
    const nameEnd = eq >= 0 && eq < to ? eq : to;
    const length = nameEnd - from;
    // The name decoded alone first: the value only of a parameter so named (a 9 MB one is not).
    if (length >= name.length && length <= 3 * name.length && asciiLower(new URLSearchParams(`${q.slice(from, nameEnd)}=`).keys().next().value ?? '') === name) {
      found = true;
      const value = new URLSearchParams(q.slice(from, to)).values().next().value ?? '';
      if (value !== '') values.push(value);
    }
    from = to + 1;
  }
  return found ? values.join(',') : null;
}

function classifyAnew(request: ClassifiedRequest): RequestKind {
  let url: URL;
  try {
    // A path is a path, "//supportstateuser" too (a URL parser would read an authority there).
    url = request.url.startsWith('/') ? new URL(`http://classify.invalid${request.url}`) : new URL(request.url, 'http://classify.invalid');
  } catch {
    url = new URL('http://classify.invalid/');
  }
  const method = request.method.toUpperCase();
  const accept = headerOf(request.headers, 'accept');
  const contentType = headerOf(request.headers, 'content-type');
  const soapAction = headerOf(request.headers, 'soapaction');
  const negotiated = negotiate(accept);
  const callback = queryValue(url, FORMATS.callbackParam) ?? undefined;
  const common = {
    method, methodAsSent: request.method, negotiated, ...(accept !== undefined ? { accept } : {}), ...(contentType !== undefined ? { contentType } : {}),
    ...(soapAction !== undefined ? { soapAction } : {}), ...(callback !== undefined ? { callback } : {}),
    unsafeCallback: callback !== undefined && !SAFE_CALLBACK.test(callback),
  };
  const route = routeOf(url.pathname);
  if (!route) return { ...common, selector: 'none', format: negotiated, jsonp: false };
  const query = formatNamed(queryValue(url, 'format'));
  const [selector, selected]: [Selector, Format | undefined] = route.extension ? ['extension', route.extension] : query ? ['query', query] : ['none', undefined];
  // /json/reply always answers JSON and /soap11 always SOAP; a custom route takes the selector, else Accept.
  const format: Format = route.form === 'reply' ? 'json' : route.form === 'soap11' ? 'soap11' : selected ?? negotiated;
  return {
    ...common, operation: route.operation, route: route.form, basePath: route.basePath, selector,
    ...(selected ? { selected } : {}), format,
    jsonp: callback !== undefined && callback !== '' && format === 'json' && route.form !== 'soap11',
  };
}

export const isJsonOperation = (op: Operation | undefined): op is JsonOperation => op?.wire === 'json';
export const isSoapOperation = (op: Operation | undefined): op is SoapOperation => op?.wire === 'soap';

/** Characters of a method or path a label or count holds at most: a recording's method or URL of
 *  megabytes, one per entry, had each kept whole as a key of the run's counts (hundreds of MB). */
const MAX_NAMED = 64;
/** `text`, or past MAX_NAMED characters its head, its length and a digest (two long texts of one head
 *  stay two). */
export function bounded(text: string): string {
  if (text.length <= MAX_NAMED) return text;
  return `${text.slice(0, MAX_NAMED / 2)}… (${text.length} characters, SHA-256 ${createHash('sha256').update(text).digest('hex').slice(0, 16)})`;
}

/** Labels made, per kind object (classify hands out one per distinct request: the label of every
 *  exchange of a run is one of a few). */
const labels = new WeakMap<RequestKind, string>();

/** One line naming a kind, for coverage tables: "SupportStateUserLoginRequest POST custom .json JSONP". */
export function kindLabel(k: RequestKind): string {
  let label = labels.get(k);
  if (label === undefined) labels.set(k, (label = labelOf(k)));
  return label;
}

function labelOf(k: RequestKind): string {
  if (!k.operation) return `${bounded(k.methodAsSent)} (not this interface)`;
  const selector = k.selector === 'extension' ? ` .${k.selected}` : k.selector === 'query' ? ` ?format=${k.selected}` : '';
  const form = k.route === 'custom' ? 'route' : k.route === 'reply' ? '/json/reply' : '/soap11';
  const answer = k.method === 'OPTIONS' ? '' : ` -> ${k.jsonp ? 'JSONP' : k.format === 'soap11' ? 'SOAP' : k.format.toUpperCase()}`;
  return `${k.operation.name} ${bounded(k.methodAsSent)} ${form}${selector}${k.callback !== undefined ? ' ?callback' : ''}${answer}`;
}
