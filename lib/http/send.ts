// Sends one exchange with undici and records it. Every phase is bounded (connect, response
// headers, the whole body) and the body is capped while it streams, so a hostile or stalled
// target costs at most a known time and memory. Redirects are recorded, never followed; 429 and 503
// with Retry-After are retried, at most MAX_TRIES requests per exchange, never sooner than
// RETRY_FLOOR_MS whatever Retry-After says, within the exchange's time limit and the run's retry
// budget; past any of these the answer received is the record, and the exchange says it gave up.
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { decodeContent } from './content-coding.js';
import { exchangeHeaders, recordedResponse, type Exchange, type ExchangeSpec, type RecordedResponse, type TransportError } from './exchange.js';

// undici's index loads all it offers (fetch, WebSocket, caches, mocks): about 70 ms of CPU at every
// start of the CLI, two thirds of what undici costs to load. A run without a proxy needs its Agent and
// errors only, required from their own files (undici declares no exports map: these are its published
// files); the index, which also gives every dispatcher the methods a proxy agent calls (connect), only
// when HTTP(S)_PROXY is honoured.
const fromUndici = createRequire(import.meta.url);
const Agent = fromUndici('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
const errors = fromUndici('undici/lib/core/errors.js') as typeof Undici.errors;

export interface TransportOptions {
  /** Limit for each phase: connecting, waiting for headers, receiving the whole body. */
  readonly timeoutMs: number;
  /** Bodies larger than this are cut off and recorded as an error. */
  readonly maxBodyBytes: number;
  /** Connections kept open per origin. */
  readonly connections?: number;
  /** PEM certificates to trust in addition to the system's (a private CA). */
  readonly ca?: string;
  /** Do not verify TLS certificates (recorded in every report). */
  readonly insecure?: boolean;
  /** Honour HTTP_PROXY / HTTPS_PROXY / NO_PROXY (off for the embedded reference). */
  readonly useProxyEnv?: boolean;
}

/** Requests per exchange at most, the first included: a target answering 429 to everything costs this many each. */
export const MAX_TRIES = 3;
/** The shortest wait before a retry, whatever Retry-After says (`Retry-After: 0` made a storm of requests). */
export const RETRY_FLOOR_MS = 250;
/** The run's retries: at most this many, or this share of its first tries when that is more. */
export const RETRY_BUDGET = { min: 100, share: 0.1 } as const;

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** An exchange, retries included, never takes longer than this many phase limits. */
export const PHASES_PER_EXCHANGE = 3;

/** The longest the harness keeps an idle connection, whatever the server's Keep-Alive hint (undici
 *  otherwise keeps it until 2 s before the hinted time, a margin a loaded machine's stalled event
 *  loop overran: a request went out on a socket the server was closing, and was judged a reset). */
export const CLIENT_KEEP_ALIVE_MS = 10_000;

export function createDispatcher(options: TransportOptions): Dispatcher {
  const agent = {
    connect: {
      timeout: options.timeoutMs,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.insecure ? { rejectUnauthorized: false } : {}),
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: options.connections ?? 32,
    keepAliveTimeout: CLIENT_KEEP_ALIVE_MS,
    keepAliveMaxTimeout: CLIENT_KEEP_ALIVE_MS,
  };
  // EnvHttpProxyAgent with no HTTP(S)_PROXY in the environment sends everything through a plain
  // Agent, after parsing each request's origin and reading NO_PROXY again: the Agent itself then.
  const proxied = [process.env.http_proxy, process.env.HTTP_PROXY, process.env.https_proxy, process.env.HTTPS_PROXY].some(Boolean);
  return options.useProxyEnv && proxied ? new (fromUndici('undici') as typeof Undici).EnvHttpProxyAgent(agent) : new Agent(agent);
}

/** Bodies up to this size stream freely; every normal answer of the interface is far smaller. */
export const FREE_BODY_BYTES = 256 * 1024;
/** Exchanges that may read past FREE_BODY_BYTES at once: bounds memory to about this many caps. */
export const LARGE_BODY_SLOTS = 2;

/** Lets at most `size` exchanges read large bodies at once. Holders never wait on one another,
 *  so this cannot deadlock; the rest wait (their time limits keep running). */
export class BodySlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size = LARGE_BODY_SLOTS) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) { this.free--; return; }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Shared by every exchange of a run: the request cap, the request rate and the retry budget. */
export class RequestBudget {
  private sent = 0;
  private firsts = 0;
  private retried = 0;
  private nextSlot = 0;

  constructor(private readonly maxRequests = Infinity, private readonly perSecond = Infinity, private readonly retries: { readonly min: number; readonly share: number } = RETRY_BUDGET) {}

  /** Takes one of the run's retries: false once they reach the budget (a share of the first tries). */
  takeRetry(): boolean {
    if (this.retried >= Math.max(this.retries.min, Math.floor(this.retries.share * this.firsts))) return false;
    this.retried++;
    return true;
  }

  /** The run's retry budget as a phrase. */
  get retryLimit(): string {
    return `at most ${this.retries.min} or ${Math.round(this.retries.share * 100)}% of the requests`;
  }

  /** Takes a request of the cap: false when it is spent; a promise of true when the rate makes it
  *  wait for its slot (without --rate nothing is awaited: one promise less per exchange). A retry's
  *  request says so. */
  take(retry = false): boolean | Promise<boolean> {
    if (this.sent >= this.maxRequests) return false;
    this.sent++;
    if (!retry) this.firsts++;
    if (Number.isFinite(this.perSecond)) {
      const now = Date.now();
      const at = Math.max(now, this.nextSlot);
      this.nextSlot = at + 1000 / this.perSecond;
      if (at > now) return new Promise((r) => setTimeout(() => r(true), at - now));
    }
    return true;
  }

  get count(): number {
    return this.sent;
  }
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;
const mib = (bytes: number) => (bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`);

class BodyTooLarge extends Error {}
class BodyTooSlow extends Error {}
/** The exchange, retries included, ran past PHASES_PER_EXCHANGE phase limits. */
class ExchangeTooLong extends Error {}

/** Undici and Node error codes -> one line an operator can act on. */
export function describeError(error: unknown, url: URL, options: TransportOptions): TransportError {
  if (error instanceof BodyTooLarge) return { kind: 'too-large', message: `response exceeded the ${mib(options.maxBodyBytes)} cap${error.message}` };
  if (error instanceof BodyTooSlow) return { kind: 'body-timeout', message: `response body not complete within ${seconds(options.timeoutMs)}` };
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? '';
  const causeCode = e.cause?.code ?? '';
  const either = (...codes: string[]) => codes.includes(code) || codes.includes(causeCode);
  const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (either('ECONNREFUSED')) return { kind: 'refused', message: `connection refused by ${where}` };
  if (either('ENOTFOUND', 'EAI_AGAIN')) return { kind: 'dns', message: `host not found: ${url.hostname}` };
  if (either('UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT')) return { kind: 'connect-timeout', message: `no connection to ${where} within ${seconds(options.timeoutMs)}` };
  if (either('UND_ERR_HEADERS_TIMEOUT')) return { kind: 'headers-timeout', message: `no response headers within ${seconds(options.timeoutMs)}` };
  if (either('UND_ERR_BODY_TIMEOUT')) return { kind: 'body-timeout', message: `response body stalled for ${seconds(options.timeoutMs)}` };
  // OpenSSL's verification codes (UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, …) and Node's TLS errors.
  const tls = /^(UNABLE_TO_|CERT_|ERR_TLS|ERR_SSL|EPROTO)|SELF_SIGNED|ALTNAME|HOSTNAME_MISMATCH|DEPTH_ZERO|INVALID_CA|INVALID_PURPOSE/;
  if (tls.test(code) || tls.test(causeCode)) {
    return { kind: 'tls', message: `TLS failure with ${where}: ${(e.cause?.message ?? e.message ?? code).split('\n')[0]}` };
  }
  if (either('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')) {
    return { kind: 'reset', message: `connection closed by ${where} before the response was complete` };
  }
  // The exchange's own deadline (exchangeOnce), or an abort from elsewhere: undici's, or a DOMException
  // named TimeoutError or AbortError (an AbortSignal's).
  const name = (error as { name?: string }).name;
  if (error instanceof ExchangeTooLong || either('UND_ERR_ABORTED', 'ABORT_ERR') || name === 'TimeoutError' || name === 'AbortError') {
    return { kind: 'aborted', message: `no complete response within ${seconds(PHASES_PER_EXCHANGE * options.timeoutMs)}` };
  }
  return { kind: 'other', message: `${code || 'error'}: ${(e.message ?? String(error)).split('\n')[0]}` };
}

interface Received { readonly status: number; readonly headers: Record<string, string>; readonly raw: Buffer }

/** One request through the dispatcher's handler interface: the body collected within the cap and
 *  within a phase limit of its headers, the whole within `withinMs`, or rejected with the reason.
 *  Past FREE_BODY_BYTES it holds one of the run's large-body slots until done (reading paused
 *  meanwhile). No Readable, async iterator or AbortSignal: through request() a send cost about five
 *  times the CPU of a load generator's. 1xx answers are passed over, as request() does. */
function exchangeOnce(dispatcher: Dispatcher, url: URL, spec: ExchangeSpec, options: TransportOptions, slots: BodySlots, withinMs: number): Promise<Received> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let early: Error | undefined; // the deadline passed before the request had a connection
    let settled = false;
    let late = false;
    let holding = false;
    let waiting: Buffer[] | undefined; // chunks held while waiting for a large-body slot
    let ended = false;
    let status = 0;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let bodyTimer: NodeJS.Timeout | undefined;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(bodyTimer);
      if (holding) slots.release();
      if (error) reject(late ? new BodyTooSlow() : error);
      else resolve({ status, headers, raw: Buffer.concat(chunks) });
    };
    const abort = (reason: Error) => {
      if (controller) controller.abort(reason);
      else early ??= reason;
    };
    const deadline = setTimeout(() => abort(new ExchangeTooLong()), withinMs);
    /** Takes a chunk; false once the cap is passed (the request is then aborted). */
    const take = (chunk: Buffer): boolean => {
      size += chunk.length;
      if (size > options.maxBodyBytes) { abort(new BodyTooLarge()); return false; }
      chunks.push(chunk);
      return true;
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (early) c.abort(early);
      },
      onResponseStart(c, statusCode, received) {
        if (statusCode < 200) return;
        status = statusCode;
        headers = exchangeHeaders(Object.entries(received));
        bodyTimer = setTimeout(() => { late = true; c.abort(new BodyTooSlow()); }, options.timeoutMs);
      },
      onResponseData(c, chunk) {
        if (settled) return;
        if (waiting) { waiting.push(chunk); return; }
        if (!holding && size + chunk.length > FREE_BODY_BYTES) {
          waiting = [chunk];
          c.pause();
          void slots.acquire().then(() => {
            holding = true;
            if (settled) { slots.release(); holding = false; return; }
            const held = waiting!;
            waiting = undefined;
            for (const x of held) if (!take(x)) return;
            if (ended) settle(undefined);
            else c.resume();
          });
          return;
        }
        take(chunk);
      },
      onResponseEnd() {
        if (waiting) ended = true;
        else settle(undefined);
      },
      onResponseError(_c, error) {
        settle(error);
      },
    };
    try {
      dispatcher.dispatch({
        origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname,
        method: (spec.method || (spec.body ? 'PUT' : 'GET')) as Dispatcher.HttpMethod, headers: spec.headers, body: spec.body,
      }, handler);
    } catch (error) {
      settle(error as Error);
    }
  });
}

/** The response as recorded: its body decoded from the content codings the request offered, within
 *  the cap counted after decoding; size and hash stay those of the bytes received. */
function decodedResponse(status: number, headers: Readonly<Record<string, string>>, raw: Buffer, sent: Readonly<Record<string, string>>, options: TransportOptions) {
  const accept = Object.entries(sent).find(([k]) => k.toLowerCase() === 'accept-encoding')?.[1];
  const d = decodeContent(raw, headers['content-encoding'], accept, options.maxBodyBytes);
  if (!d.codings.length) return recordedResponse(status, headers, raw);
  if (!d.ok && d.tooLarge) throw new BodyTooLarge(` once decoded from ${d.codings.join(', ')}`);
  const received = recordedResponse(status, headers, raw);
  return { ...received, ...(d.ok ? { body: d.body } : {}), contentCoding: { codings: d.codings, ...(d.ok ? {} : { error: d.error }) } };
}

/** Retry-After as a delay in ms (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface SendContext {
  readonly dispatcher: Dispatcher;
  readonly options: TransportOptions;
  readonly budget: RequestBudget;
  readonly slots: BodySlots;
  /** How a retry waits (a timer; a test records the waits instead of sitting through them). */
  readonly sleep?: (ms: number) => Promise<void>;
}

const timer = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Request URLs by base and path: every account's request goes to one of a few, and parsing the same
 *  URL again per exchange cost more than the rest of preparing the request. Never changed once made;
 *  short paths only, emptied when full. */
const URLS = new Map<string, URL>();
const MAX_URLS = 256;
const MAX_CACHED_PATH = 512;
function urlOf(baseUrl: string, path: string): URL {
  const make = () => new URL(baseUrl.replace(/\/+$/, '') + path);
  if (path.length > MAX_CACHED_PATH) return make();
  const key = `${baseUrl}\u0000${path}`;
  let url = URLS.get(key);
  if (!url) {
    url = make();
    if (URLS.size >= MAX_URLS) URLS.clear();
    URLS.set(key, url);
  }
  return url;
}

export async function send(spec: ExchangeSpec, baseUrl: string, ctx: SendContext): Promise<Exchange> {
  const { dispatcher, options, budget, slots, sleep = timer } = ctx;
  const url = urlOf(baseUrl, spec.path);
  const request_: Exchange['request'] = spec.body !== undefined
    ? { method: spec.method, url: url.href, headers: spec.headers, body: spec.body }
    : { method: spec.method, url: url.href, headers: spec.headers };
  // The clock starts when the exchange is let through (by --rate), not when it was queued.
  const taken = budget.take();
  if (!(taken === true || (taken !== false && await taken))) {
    return { id: spec.id, title: spec.title, origin: spec.origin, startedAt: new Date().toISOString(), request: request_, durationMs: 0,
      error: { kind: 'not-sent', message: 'not sent: the run\'s request cap (--max-requests) was reached' } };
  }
  const started = Date.now();
  const deadline = started + PHASES_PER_EXCHANGE * options.timeoutMs;
  const startedAt = new Date(started).toISOString();
  // Written out, not spread: the same keys in the same order, built once per exchange.
  const done = (rest: { readonly response: RecordedResponse } | { readonly error: TransportError }, attempts: number): Exchange => {
    const out: { -readonly [K in keyof Exchange]: Exchange[K] } = 'response' in rest
      ? { id: spec.id, title: spec.title, origin: spec.origin, startedAt, request: request_, response: rest.response, durationMs: Date.now() - started }
      : { id: spec.id, title: spec.title, origin: spec.origin, startedAt, request: request_, error: rest.error, durationMs: Date.now() - started };
    if (attempts > 1) out.attempts = attempts;
    return out;
  };

  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      // request() refuses any other scheme with this error (the CLI allows only these two).
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new errors.InvalidArgumentError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
      const res = await exchangeOnce(dispatcher, url, spec, options, slots, Math.max(1, deadline - Date.now()));
      response = decodedResponse(res.status, res.headers, res.raw, spec.headers, options);
    } catch (error) {
      return done({ error: describeError(error, url, options) }, attempt);
    }
    const retryAfter = response.status === 429 || response.status === 503 ? response.headers['retry-after'] : undefined;
    const asked = retryAfterMs(retryAfter);
    if (asked === undefined) return done({ response }, attempt);
    // What was received (the 429 or 503) is the record; the exchange says why no further request was sent.
    const giveUp = (why?: string) => ({
      ...done({ response }, attempt),
      gaveUp: `${response.status} ${STATUS_CODES[response.status] ?? ''} (Retry-After: ${retryAfter!.trim().slice(0, 40)}), gave up after ${attempt} ${attempt === 1 ? 'try' : 'tries'}${why ? ` (${why})` : ''}`,
    });
    if (attempt >= MAX_TRIES) return giveUp();
    const wait = Math.max(asked, RETRY_FLOOR_MS);
    if (Date.now() + wait >= deadline) return giveUp(`a wait of ${seconds(wait)} would pass the exchange's limit of ${seconds(PHASES_PER_EXCHANGE * options.timeoutMs)}`);
    if (!budget.takeRetry()) return giveUp(`the run's retries are spent: ${budget.retryLimit}`);
    await sleep(wait);
    if (!(await budget.take(true))) return giveUp('the run\'s request cap (--max-requests) was reached');
  }
}
