// Sends one exchange with undici and records it. Every phase is bounded (connect, response
// headers, the whole body) and the body is capped while it streams, so a hostile or stalled
// target costs at most a known time and memory. Redirects are recorded, never followed; 429 and 503
// with Retry-After are retried, at most MAX_TRIES requests per exchange, never sooner than
// RETRY_FLOOR_MS whatever Retry-After says, within the exchange's time limit and the run's retry
// budget; past any of these the answer received is the record, and the exchange says it gave up.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { acceptEncodingOf, decodedAnswer } from './content-coding.js';
import { bodyPastCap, exchangeHeaders, STOPPED_RUN, type Exchange, type ExchangeSpec, type AnswerHead, type RawHeaders, type RecordedResponse, type TransportError } from './exchange.js';

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
/** What sending one exchange draws on: a run's RequestBudget, or a portion of it (RequestBudget.portion). */
export type SendBudget = Pick<RequestBudget, 'take' | 'takeRetry' | 'retryLimit' | 'refusal'>;

export class RequestBudget {
  private sent = 0;
  /** Requests of the cap set aside by portion() and not yet taken. */
  private reserved = 0;
  private firsts = 0;
  private retried = 0;
  private nextSlot = 0;
  /** Why nothing more is sent, once the run was stopped (the signal's name). */
  private stoppedBy: string | undefined;

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
    if (this.sent + this.reserved >= this.maxRequests || this.stoppedBy !== undefined) return false;
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

  /** Sets aside `n` requests of the cap for one caller's first tries, taken through the budget it
   *  gives (a differential comparison's three sends); undefined when the cap has no room for all `n`.
   *  Spent one send at a time, the cap left the last comparison without the legacy's second answer:
   *  the candidate's answer sent, and its difference never counted. `release()` gives back what
   *  was not taken. */
  portion(n: number): (SendBudget & { release(): void }) | undefined {
    if (this.sent + this.reserved + n > this.maxRequests) return undefined;
    this.reserved += n;
    let left = n;
    const take = (retry = false) => {
      if (!retry && left > 0) { left--; this.reserved--; }
      return this.take(retry);
    };
    const release = () => { this.reserved -= left; left = 0; };
    const refusal = () => this.refusal;
    return {
      take, release, takeRetry: () => this.takeRetry(), retryLimit: this.retryLimit,
      get refusal() { return refusal(); },
    };
  }

  /** Nothing more is sent: the run was stopped (`cause`: the signal). */
  stop(cause: string): void {
    this.stoppedBy ??= cause;
  }

  /** Why a request was not sent, as its exchange says it. */
  get refusal(): string {
    return this.stoppedBy !== undefined ? `${STOPPED_RUN} (${this.stoppedBy})` : 'the run\'s request cap (--max-requests) was reached';
  }
}

const seconds = (ms: number) => `${+(ms / 1000).toFixed(3)} s`;

/** The answer's body went past the cap: the harness read no further. */
class BodyTooLarge extends Error {}
class BodyTooSlow extends Error {}
/** The answer's head came but not its whole body (past the cap, stalled, too slow, cut off): the head
 *  is kept (Exchange.answerHead), `cause` says why the body is missing. */
class HeadOnly extends Error {
  constructor(readonly head: AnswerHead, cause: Error) { super('', { cause }); }
}
/** The parser refused the answer's head after its Content-Length: undici reports any such refusal
 *  as a length mismatch, which otherwise reads as a connection closed mid-body. */
class RefusedHead extends Error {}
/** The exchange, retries included, ran past PHASES_PER_EXCHANGE phase limits. */
class ExchangeTooLong extends Error {}

/** Undici and Node error codes -> one line an operator can act on. */
export function describeError(error: unknown, url: URL, options: TransportOptions): TransportError {
  if (error instanceof HeadOnly) return describeError(error.cause, url, options);
  if (error instanceof BodyTooLarge) return bodyPastCap(options.maxBodyBytes, error.message);
  if (error instanceof BodyTooSlow) return { kind: 'body-timeout', message: `response body not complete within ${seconds(options.timeoutMs)}` };
  if (error instanceof RefusedHead) return { kind: 'other', message: 'a response head the HTTP parser refused after its Content-Length (a second Content-Length, Transfer-Encoding beside it, or a malformed line)' };
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
  // undici's own words for an interim answer it will not read past (its socket is then closed by it, not the target).
  if (code === 'UND_ERR_SOCKET' && e.message === 'bad upgrade') return { kind: 'other', message: 'a 101 (Switching Protocols) the request did not ask for: it sent no Upgrade' };
  // RFC 9110 15.2: a client MUST be able to parse 1xx answers it did not expect, so a target may send
  // one; undici closes the connection instead. Not the target's fault: its answer is not judged.
  if (code === 'UND_ERR_SOCKET' && e.message === 'bad response') return { kind: 'not-read', message: 'not judged: the target sent a 100 (Continue) first, which RFC 9110 15.2 allows unasked and the harness\'s HTTP client (undici) cannot read past' };
  if (either('UND_ERR_HEADERS_OVERFLOW')) return { kind: 'other', message: `a response head or trailer section larger than ${maxHeaderSize % 1024 ? `${maxHeaderSize} bytes` : `${maxHeaderSize / 1024} KiB`}` };
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

interface Received { readonly status: number; readonly headers: Record<string, string>; readonly raw: Buffer; readonly reason: string; readonly rawHeaders: RawHeaders | undefined }

/** The head of an answer received, as an exchange keeps it (a reason or raw list it has). */
const headOf = (r: Omit<Received, 'raw'>): AnswerHead => ({ status: r.status, headers: r.headers, ...(r.reason ? { reason: r.reason } : {}), ...(r.rawHeaders ? { rawHeaders: r.rawHeaders } : {}) });

/** A body in one chunk smaller than this is kept as received, not copied (it is a view of the
 *  socket's read, which holds little more); a larger one is copied into memory of its own. */
const SHARED_CHUNK_BYTES = 64 * 1024;
/** Chunks after the first are copied into buffers of this size: a view kept per chunk is an object
 *  each, holding the socket's read it came in, and a body in one-byte chunks took 2.9 GB. */
const GATHER_BYTES = 64 * 1024;

/** One request's handler for the dispatcher: its state in fields and its callbacks on the prototype
 *  (one object per request, not a dozen closures), and itself the Received it resolves with. */
class OneRequest implements Dispatcher.DispatchHandler, Received {
  status = 0;
  headers: Record<string, string> = {};
  raw: Buffer = EMPTY_BODY;
  reason = '';
  /** undici's own list of the fields as received (its controller holds it): a reference, read only if shown. */
  rawHeaders: RawHeaders | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private early: Error | undefined; // the deadline passed before the request had a connection
  private settled = false;
  private late = false;
  private pastCap: BodyTooLarge | undefined; // the body went past the cap: why it was aborted
  private holding = false;
  private waiting: Buffer[] | undefined; // chunks held while waiting for a large-body slot
  private ended = false;
  private readonly chunks: Buffer[] = [];
  private gather: Buffer | undefined; // the buffer chunks after the first are copied into
  private gathered = 0;
  private size = 0;
  private bodyTimer: NodeJS.Timeout | undefined;
  private readonly deadline: NodeJS.Timeout;

  constructor(private readonly options: TransportOptions, private readonly slots: BodySlots, private readonly resolve: (r: Received) => void, private readonly reject: (e: Error) => void, withinMs: number) {
    this.deadline = setTimeout(pastDeadline, withinMs, this);
  }

  settle(error: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    clearTimeout(this.bodyTimer);
    if (this.holding) this.slots.release();
    if (error && this.status === 0 && (error as { code?: string }).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') error = new RefusedHead();
    if (error) {
      // The body read so far is let go; a head that came is kept (its status and header fields).
      this.chunks.length = 0;
      this.gather = undefined;
      const why = this.late ? new BodyTooSlow() : this.pastCap ?? error;
      this.reject(this.status ? new HeadOnly(headOf(this), why) : why);
      return;
    }
    const { chunks } = this;
    if (this.gather) chunks.push(this.gather.subarray(0, this.gathered));
    this.raw = chunks.length === 1 && this.size < SHARED_CHUNK_BYTES ? chunks[0]! : Buffer.concat(chunks);
    this.resolve(this);
  }

  abort(reason: Error): void {
    if (this.controller) this.controller.abort(reason);
    else this.early ??= reason;
  }

  /** Takes a chunk; false once the cap is passed (the request is then aborted). */
  private take(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.size > this.options.maxBodyBytes) { this.abort(this.pastCap = new BodyTooLarge()); return false; }
    if (!this.chunks.length) { this.chunks.push(chunk); return true; }
    for (let at = 0; at < chunk.length;) {
      if (!this.gather || this.gathered === GATHER_BYTES) {
        if (this.gather) this.chunks.push(this.gather);
        this.gather = Buffer.allocUnsafeSlow(GATHER_BYTES);
        this.gathered = 0;
      }
      const n = chunk.copy(this.gather, this.gathered, at);
      this.gathered += n;
      at += n;
    }
    return true;
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.early) c.abort(this.early);
  }

  onResponseStart(c: Dispatcher.DispatchController, statusCode: number, received: Record<string, string | string[] | undefined>, statusMessage?: string): void {
    if (statusCode < 200) return;
    this.status = statusCode;
    this.headers = asExchangeHeaders(received);
    this.reason = statusMessage ?? '';
    const raw = (c as { rawHeaders?: unknown }).rawHeaders;
    if (Array.isArray(raw)) this.rawHeaders = raw as RawHeaders;
    this.bodyTimer = setTimeout(bodyTooSlow, this.options.timeoutMs, this, c);
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.waiting) { this.waiting.push(chunk); return; }
    if (!this.holding && this.size + chunk.length > FREE_BODY_BYTES) {
      this.waiting = [chunk];
      c.pause();
      void this.slots.acquire().then(() => {
        this.holding = true;
        if (this.settled) { this.slots.release(); this.holding = false; return; }
        const held = this.waiting!;
        this.waiting = undefined;
        for (const x of held) if (!this.take(x)) return;
        if (this.ended) this.settle(undefined);
        else c.resume();
      });
      return;
    }
    this.take(chunk);
  }

  onResponseEnd(): void {
    if (this.waiting) this.ended = true;
    else this.settle(undefined);
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    this.settle(error);
  }

  /** The body timer fired: the body was not complete within a phase limit of its headers. */
  tooSlow(c: Dispatcher.DispatchController): void {
    this.late = true;
    c.abort(new BodyTooSlow());
  }
}

const EMPTY_BODY = Buffer.alloc(0);
const pastDeadline = (r: OneRequest) => r.abort(new ExchangeTooLong());
const bodyTooSlow = (r: OneRequest, c: Dispatcher.DispatchController) => r.tooSlow(c);

/** undici's header object as an exchange keeps it: its names are lower-case and unique already, so it
 *  is kept, repeated headers joined with ", " in place; one holding `__proto__` as its own member
 *  goes through exchangeHeaders like any other list (which leaves it out). */
function asExchangeHeaders(received: Record<string, string | string[] | undefined>): Record<string, string> {
  if (Object.hasOwn(received, '__proto__')) return exchangeHeaders(Object.entries(received));
  for (const name in received) {
    const value = received[name];
    if (typeof value === 'string') continue;
    if (value === undefined) return exchangeHeaders(Object.entries(received));
    received[name] = value.join(', ');
  }
  return received as Record<string, string>;
}

/** One request through the dispatcher's handler interface: the body collected within the cap and
 *  within a phase limit of its headers, the whole within `withinMs`, or rejected with the reason.
 *  Past FREE_BODY_BYTES it holds one of the run's large-body slots until done (reading paused
 *  meanwhile). No Readable, async iterator or AbortSignal: through request() a send cost about five
 *  times the CPU of a load generator's. 1xx answers are passed over, as request() does. */
function exchangeOnce(dispatcher: Dispatcher, target: Target, spec: ExchangeSpec, options: TransportOptions, slots: BodySlots, withinMs: number): Promise<Received> {
  return new Promise((resolve, reject) => {
    const handler = new OneRequest(options, slots, resolve, reject, withinMs);
    try {
      dispatcher.dispatch({ origin: target.origin, path: target.path, method: (spec.method || (spec.body ? 'PUT' : 'GET')) as Dispatcher.HttpMethod, headers: spec.fields ? spec.fields.flat() : spec.headers, body: spec.body }, handler);
    } catch (error) {
      handler.settle(error as Error);
    }
  });
}

/** The response as recorded (decodedAnswer); past the cap once decoded, its head kept. */
function decodedResponse(res: Received, sent: Readonly<Record<string, string>>, options: TransportOptions): RecordedResponse {
  const d = decodedAnswer(res.status, res.headers, res.raw, res.reason, res.rawHeaders, acceptEncodingOf(sent), options.maxBodyBytes);
  if ('pastCapHow' in d) throw new HeadOnly(headOf(res), new BodyTooLarge(d.pastCapHow));
  return d;
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
  readonly budget: SendBudget;
  readonly slots: BodySlots;
  /** How a retry waits (a timer; a test records the waits instead of sitting through them). */
  readonly sleep?: (ms: number) => Promise<void>;
}

const timer = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Where a request goes, read once from its URL: the URL's getters build their strings at every call. */
interface Target {
  readonly url: URL;
  readonly href: string;
  readonly origin: string;
  /** Path and query, as the request line carries them. */
  readonly path: string;
  /** http: or https:, the only schemes a request can be sent to. */
  readonly sendable: boolean;
}

const targetOf = (url: URL): Target => ({
  url, href: url.href, origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname,
  sendable: url.protocol === 'http:' || url.protocol === 'https:',
});

/** Request targets by base and path: every account's request goes to one of a few, and parsing the
 *  same URL again per exchange cost more than the rest of preparing the request. Never changed once
 *  made; short paths only, emptied when full. */
const TARGETS = new Map<string, Map<string, Target>>();
const MAX_TARGETS = 256;
const MAX_CACHED_PATH = 512;
let targets = 0;
function targetFor(baseUrl: string, path: string): Target {
  const make = () => targetOf(new URL(baseUrl.replace(/\/+$/, '') + path));
  if (path.length > MAX_CACHED_PATH) return make();
  let byPath = TARGETS.get(baseUrl);
  let target = byPath?.get(path);
  if (!target) {
    target = make();
    if (targets >= MAX_TARGETS) { TARGETS.clear(); targets = 0; byPath = undefined; }
    if (!byPath) TARGETS.set(baseUrl, (byPath = new Map()));
    byPath.set(path, target);
    targets++;
  }
  return target;
}

/** The last time written as an ISO string, and the string: exchanges start several to a millisecond,
 *  and writing it cost more than the rest of making the record. */
let isoMs = NaN;
let iso = '';
const isoAt = (ms: number): string => {
  if (ms !== isoMs) { iso = new Date(ms).toISOString(); isoMs = ms; }
  return iso;
};

/** The exchange's record, its keys always in this order. Written out, not spread: built once per exchange. */
function recorded(spec: ExchangeSpec, request: Exchange['request'], startedAt: string, started: number, attempts: number, response: RecordedResponse | undefined, error?: TransportError): Exchange {
  const out: { -readonly [K in keyof Exchange]: Exchange[K] } = response
    ? { id: spec.id, title: spec.title, origin: spec.origin, startedAt, request, response, durationMs: Date.now() - started }
    : { id: spec.id, title: spec.title, origin: spec.origin, startedAt, request, error, durationMs: Date.now() - started };
  if (attempts > 1) out.attempts = attempts;
  return out;
}

export async function send(spec: ExchangeSpec, baseUrl: string, ctx: SendContext): Promise<Exchange> {
  const { dispatcher, options, budget, slots } = ctx;
  const target = targetFor(baseUrl, spec.path);
  // Fields sent as recorded are shown and replayed so (rawHeaders), not as their map.
  const raw = spec.fields ? { rawHeaders: spec.fields.flat() } : {};
  const request_: Exchange['request'] = spec.body !== undefined
    ? { method: spec.method, url: target.href, headers: spec.headers, ...raw, body: spec.body }
    : { method: spec.method, url: target.href, headers: spec.headers, ...raw };
  // The clock starts when the exchange is let through (by --rate), not when it was queued.
  const taken = budget.take();
  if (!(taken === true || (taken !== false && await taken))) {
    return { id: spec.id, title: spec.title, origin: spec.origin, startedAt: new Date().toISOString(), request: request_, durationMs: 0,
      error: { kind: 'not-sent', message: `not sent: ${budget.refusal}` } };
  }
  const started = Date.now();
  const deadline = started + PHASES_PER_EXCHANGE * options.timeoutMs;
  const startedAt = isoAt(started);

  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      // request() refuses any other scheme with this error (the CLI allows only these two).
      if (!target.sendable) throw new errors.InvalidArgumentError('Invalid URL protocol: the URL must start with `http:` or `https:`.');
      const res = await exchangeOnce(dispatcher, target, spec, options, slots, Math.max(1, deadline - Date.now()));
      response = decodedResponse(res, spec.headers, options);
    } catch (error) {
      const failed = recorded(spec, request_, startedAt, started, attempt, undefined, describeError(error, target.url, options));
      // An answer whose head came keeps it: the checks of the head judge it.
      return error instanceof HeadOnly ? { ...failed, answerHead: error.head } : failed;
    }
    if (response.status !== 429 && response.status !== 503) return recorded(spec, request_, startedAt, started, attempt, response);
    const retryAfter = response.headers['retry-after'];
    const asked = retryAfterMs(retryAfter);
    if (asked === undefined) return recorded(spec, request_, startedAt, started, attempt, response);
    // What was received (the 429 or 503) is the record; the exchange says why no further request was sent.
    const giveUp = (why?: string) => ({
      ...recorded(spec, request_, startedAt, started, attempt, response),
      gaveUp: `${response.status} ${STATUS_CODES[response.status] ?? ''} (Retry-After: ${retryAfter!.trim().slice(0, 40)}), gave up after ${attempt} ${attempt === 1 ? 'try' : 'tries'}${why ? ` (${why})` : ''}`,
    });
    if (attempt >= MAX_TRIES) return giveUp();
    const wait = Math.max(asked, RETRY_FLOOR_MS);
    if (Date.now() + wait >= deadline) return giveUp(`a wait of ${seconds(wait)} would pass the exchange's limit of ${seconds(PHASES_PER_EXCHANGE * options.timeoutMs)}`);
    if (!budget.takeRetry()) return giveUp(`the run's retries are spent: ${budget.retryLimit}`);
    await (ctx.sleep ?? timer)(wait);
    if (!(await budget.take(true))) return giveUp(budget.refusal);
  }
}
