// The reference implementation on node:http: a shell that reads a request, lets the route's
// endpoint answer, and writes the reply. It never throws at a caller and never waits forever.
import { createServer, maxHeaderSize, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { asksUpgrade, ConnectionGuard, declaresBody, seconds, type ConnectionCounts, type Stalls } from '../http/connection-guard.js';
import { exchangeHeaders, rawPairs, requestBodyOf, type RawHeaders } from '../http/exchange.js';
import { classify, isJsonOperation, type Format, type RequestKind } from '../contract/classify.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import { login, type JsonOperation, type Operation } from '../contract/operations.js';
import { Confirmation, UserDetails } from '../contract/records.js';
import type { JsonObject } from '../json/value.js';
import { writeJson } from '../json/write.js';
import { writeXml, type XmlWriteStyle } from '../xml/write.js';
import { ANSWER_CACHE_BYTES, ByteLru } from './answer-cache.js';
import { referenceConfirmation, referenceUserDetails } from './data.js';
import { notFound, serviceStackError } from './error-replies.js';
import { answerJson, bindJsonRequest, type Render } from './json-endpoint.js';
import { recordToJson } from './json-record.js';
import { accountKey, hitByFault, isSampleAccount, populationRecord } from './population.js';
import { profileOf, writerStyle, type Profile, type Served, type Variant } from './profile.js';
import { blameOf, reply, type Reply, type RequestContext } from './reply.js';
import { checkSoapRequest } from './soap-endpoint.js';
import { keepAnswer, knownAnswer, RequestForms, type RequestForm } from './request-forms.js';
import { recordToXml, soapEnvelope, soapFault } from './soap-record.js';
import { isFault } from './variants.js';

export interface ReferenceOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  readonly namespaces?: Partial<ServiceNamespaces>;
  /** The sample account's records; default: fixtures/reference/. Every other account gets its own
   *  record from the population (population.ts). */
  readonly userDetails?: JsonObject;
  readonly confirmation?: JsonObject;
  /** Answer every account with the sample records instead of its own (a fixed-data reference).
   *  Default: true when records are given (a test that supplies data means that data), else false. */
  readonly sampleOnly?: boolean;
  /** Faults and styles, applied in order. */
  readonly variants?: readonly Variant[];
  /** The fraction of accounts the faults among `variants` hit (default 1: all); deterministic per
   *  account, so a fault only some users see can be demonstrated. Styles apply to every account. */
  readonly faultRate?: number;
  /** Added to the profile's latency: a delay before every response. */
  readonly latencyMs?: number;
  /** Requests with a larger body get 413. */
  readonly maxBodyBytes?: number;
  /** Serve HTTPS with this PEM key and certificate (chain). */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** The bound of the cache of population answers, in bytes (default ANSWER_CACHE_BYTES; 0: none). */
  readonly answerCacheBytes?: number;
  /** Someone watching every request (the judging reference); the reference answers as it always does. */
  readonly observer?: ReferenceObserver;
  /** The bounds on connections (lib/http/connection-guard.ts): open at most (default: from the
   *  descriptor limit) and the time for a request head (default 10 s); and the time for a whole
   *  request after its first byte (default REQUEST_MS, Node's requestTimeout). */
  readonly connections?: { readonly max?: number; readonly headMs?: number; readonly requestMs?: number };
}

/** A request as the reference received it: lower-case header names, the body as text when read. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The header fields as received (Node's rawHeaders): what a report shows. */
  readonly rawHeaders?: RawHeaders;
  readonly body?: string;
  /** The body's bytes are not UTF-8: where the first bad one is (see lib/http/exchange.ts). */
  readonly notUtf8At?: number;
  /** The body went past the reference's cap (it answered 413): not read, so not here. */
  readonly bodyLeftOut?: true;
}

/** Hooks a host of the reference can set; the reference itself knows nothing of checks or reports. */
export interface ReferenceObserver {
  /** Before answering a request with a body: names of the rules it breaks, which an error answer to it
   *  then names ("… (fails REQ-JSON-TYPES)"), so a client's developer reads what to fix. */
  readonly judgeRequest?: (request: ReceivedRequest) => readonly string[];
  /** After answering: the request and the answer as written (its headers and body the same objects,
   *  never changed, for every answer of one prepared reply). */
  readonly answered?: (request: ReceivedRequest, answer: { status: number; headers: Readonly<Record<string, string>>; body: Buffer; reason?: string; rawHeaders?: RawHeaders }, startedAt: string, durationMs: number) => void;
  /** A route of the host's own (GET /__conformance/report): its reply, or undefined for the interface's. */
  readonly ownRoute?: (request: ReceivedRequest) => Promise<Reply> | undefined;
}


export interface RunningReference {
  readonly url: string;
  readonly port: number;
  /** The cache of population answers now: entries, bytes counted against its bound, the bound. */
  readonly answerCache: { readonly entries: number; readonly bytes: number; readonly maxBytes: number };
  /** Connections open now, and those closed or refused with no whole request (lib/http/connection-guard.ts). */
  readonly connections: ConnectionCounts;
  /** One line on the connections closed or refused with no whole request, and on the requests
   *  closed in progress or refused unread, or undefined. */
  connectionsNote(): string | undefined;
  close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** Whether the request's Content-Length declares a body past `max` (answered 413 unread). */
const declaredPast = (req: IncomingMessage, max: number): boolean => {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > max;
};

/** Reads at most `max` bytes, then calls `done` once: with the body, or undefined when it is too
 *  large or the request failed. A callback, not a promise: the answer is written in the request's
 *  'end' event, with no microtask between. Pieces are copied into one buffer as they come: kept
 *  apart, a body sent in 1-byte chunks held a Buffer object per byte (6 MB sent took 400 MB). */
function readBody(req: IncomingMessage, max: number, done: (body: Buffer | undefined) => void): void {
  if (declaredPast(req, max)) { done(undefined); return; }
  let first: Buffer | undefined;
  let whole: Buffer | undefined;
  let size = 0;
  let settled = false;
  const finish = (body: Buffer | undefined) => { if (!settled) { settled = true; done(body); } };
  req.on('data', (chunk: Buffer) => {
    const at = size;
    size += chunk.length;
    if (size > max) {
      req.removeAllListeners('data');
      req.resume(); // keep draining so the client can read our 413
      finish(undefined);
    } else if (!first) {
      first = chunk;
    } else {
      if (!whole || whole.length < size) {
        const grown = Buffer.allocUnsafe(Math.min(max, Math.max(size, 2 * (whole?.length ?? first.length), 4096)));
        (whole ?? first).copy(grown, 0, 0, at);
        whole = grown;
      }
      chunk.copy(whole, at);
    }
  });
  req.on('end', () => finish(whole ? whole.subarray(0, size) : first ?? EMPTY));
  req.on('error', () => finish(undefined));
}

/** A written record: the reply that carries it, built once, and the head node:http writes for it. */
interface Written {
  readonly mediaType: string;
  readonly body: Buffer;
  readonly reply: Reply;
}

/** A reply as node:http writes it: the body's bytes and the head as a flat list of names and values
 *  (content-length included, in the order of the reply's headers). */
interface Prepared { readonly status: number; readonly head: readonly string[]; readonly body: Buffer }

/** Each prebuilt reply, prepared once: a reply no variant replaced is written as it is. Any edit of
 *  a reply makes a new object, which is prepared afresh. */
const PREPARED = new WeakMap<Reply, Prepared>();

function prepare(r: Reply): Prepared {
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  // As a map first: a content-length the reply names keeps its place and takes the body's length.
  const headers: Record<string, string> = { ...r.headers, 'content-length': String(body.length) };
  const head: string[] = [];
  for (const k in headers) head.push(k, headers[k]!);
  return { status: r.status, head, body };
}

function prepared(r: Reply): Prepared {
  let p = PREPARED.get(r);
  if (!p) PREPARED.set(r, (p = prepare(r)));
  return p;
}

function written(mediaType: string, body: Buffer): Written {
  const r = reply(200, mediaType, body);
  PREPARED.set(r, prepare(r));
  return { mediaType, body, reply: r };
}

/** An account of the population: its identity (the key of its answers) and its request. */
interface Account { readonly key: string; readonly dto: JsonObject }

/** One way of answering: a profile (the variants applied) with its writers and its cache. */
class Answering {
  /** The sample account's bodies depend only on operation and format, so each is written once. */
  private readonly cache = new Map<string, Written>();
  private readonly xmlStyle: XmlWriteStyle;
  readonly faultStyle: XmlWriteStyle;
  readonly samples: { userDetails: JsonObject; confirmation: JsonObject };

  /** `tag` names this profile in the shared cache of population answers. */
  constructor(readonly profile: Profile, private readonly ns: ServiceNamespaces, given: { userDetails: JsonObject; confirmation: JsonObject }, private readonly tag: string, private readonly population: ByteLru<Written>) {
    this.xmlStyle = writerStyle(profile.xmlStyle, ns);
    // faultcode is a QName ("s:Client"), so a Fault is always written with the envelope as "s".
    this.faultStyle = writerStyle({ ...profile.xmlStyle, prefixes: { ...profile.xmlStyle.prefixes, envelope: 's' } }, ns);
    this.samples = { userDetails: this.data('userDetails', given.userDetails), confirmation: this.data('confirmation', given.confirmation) };
  }

  private data(record: 'userDetails' | 'confirmation', given: JsonObject): JsonObject {
    return this.profile.editData.reduce((d, edit) => edit(d, record), given);
  }

  /** The sample record or an account's own record, written. Both are cached: an answer is a pure
   *  function of the profile (this object), the format and, for an account, its key (which holds
   *  the operation and every request value the population reads); every edit that depends on
   *  more (editReply) runs on each reply, after this. */
  render(op: JsonOperation, format: Format, account?: Account): Written {
    if (account) {
      const key = `${this.tag}\0${format}\0${account.key}`;
      let hit = this.population.get(key);
      if (!hit) {
        hit = this.write(op, format, this.data(op === login ? 'userDetails' : 'confirmation', populationRecord(op, account.dto)));
        this.population.set(key, hit, hit.body.length);
      }
      return hit;
    }
    const key = `${op.key}:${format}`;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.write(op, format, op === login ? this.samples.userDetails : this.samples.confirmation);
      this.cache.set(key, hit);
    }
    return hit;
  }

  private write(op: JsonOperation, format: Format, data: JsonObject): Written {
    const shape = op === login ? UserDetails : Confirmation;
    const b = this.profile.behaviour;
    if (format === 'json') {
      const node = this.profile.editJson.reduce((n, edit) => edit(n, op), recordToJson(shape, data, this.profile.jsonBuild));
      return written(b.jsonMediaType, Buffer.from(writeJson(node, this.profile.jsonStyle)));
    }
    const xml = recordToXml(shape, data, this.ns, this.profile.soapBuild);
    if (format === 'xml') return written(b.xmlMediaType, Buffer.from(writeXml(xml, { ...this.xmlStyle, declaration: true })));
    const env = this.profile.editSoap.reduce((e, edit) => edit(e), soapEnvelope(xml, b.soapHeader));
    return written(b.soapMediaType, Buffer.from(writeXml(env, this.xmlStyle)));
  }
}

type MutableReceived = { -readonly [K in keyof ReceivedRequest]: ReceivedRequest[K] };
/** `sample`: the sample account's record, answered as the endpoint answers it (no error). */
interface Answered { reply: Reply; answering: Answering; jsonp?: boolean; dto?: JsonObject; sample?: boolean }

const internalError = (): Reply => serviceStackError(500, 'InternalServerError', 'The reference failed to answer this request');

class Reference {
  /** The answering of the sample account (and of every request no account is read from). */
  private readonly sample: Answering;
  /** The forms of request seen (no observer set), each with the last sample answer it got. */
  private readonly forms = new RequestForms<Answered>();

  constructor(
    /** With every variant, and with the styles only: a fault hits `faultRate` of the accounts. */
    private readonly faulty: Answering,
    private readonly clean: Answering,
    private readonly faultRate: number,
    private readonly ns: ServiceNamespaces,
    private readonly sampleOnly: boolean,
    private readonly maxBody: number,
    private readonly observer?: ReferenceObserver,
  ) {
    this.sample = hitByFault('sample', faultRate) ? faulty : clean;
  }

  /** The account (undefined for the sample account) and the answering it gets. */
  private accountOf(op: JsonOperation, dto: JsonObject): { account?: Account; answering: Answering } {
    if (this.sampleOnly || isSampleAccount(op, dto, String(this.faulty.samples.userDetails.userName ?? ''))) return { answering: this.sample };
    const key = accountKey(op, dto);
    return { account: { key, dto }, answering: hitByFault(key, this.faultRate) ? this.faulty : this.clean };
  }

  private soapAnswer(ctx: RequestContext, answering: Answering): Answered {
    const outcome = checkSoapRequest(ctx, this.ns);
    if (!outcome.ok) return { reply: reply(outcome.status, answering.profile.behaviour.soapMediaType, writeXml(soapFault(outcome.code, `${outcome.message}${blameOf(ctx)}`), answering.faultStyle)), answering };
    return { reply: answering.render(login, 'soap11').reply, answering, sample: true }; // ImpersonateLogoutRequest answers the same record as a login
  }

  /** Calls `done` once with the reply, every editReply of the answering profile applied (faults and
   *  styles at the HTTP level). `received` (built only when an observer is set) gets the body. */
  handle(req: IncomingMessage, received: MutableReceived | undefined, done: (r: Reply) => void): void {
    const method = req.method ?? 'GET';
    const own = received && this.observer?.ownRoute?.(received);
    if (own) { own.then(done, () => done(internalError())); return; }
    // A judging reference reads every request afresh: its observer judges each one.
    const form = received ? undefined : this.forms.formOf(method, req.url ?? '/', req.headers);
    const kind = form?.kind ?? classify({ method, url: req.url ?? '/', headers: req.headers });
    this.answer(req, method, kind, received, form, (a) => {
      const edits = a.answering.profile.editReply;
      if (!edits.length) { done(a.reply); return; }
      const served: Served = { method, kind, headers: req.headers, ...(a.jsonp ? { jsonp: a.jsonp } : {}), ...(a.dto ? { dto: a.dto } : {}) };
      let edited: Reply;
      try {
        edited = edits.reduce((acc, edit) => edit(acc, served), a.reply);
      } catch {
        edited = internalError(); // a variant that throws still gets an answer, as before from the promise's catch
      }
      done(edited);
    });
  }

  private answer(req: IncomingMessage, method: string, kind: RequestKind, received: MutableReceived | undefined, form: RequestForm<Answered> | undefined, done: (a: Answered) => void): void {
    const sample = this.sample;
    const b = sample.profile.behaviour;
    const path = () => (req.url ?? '/').split('?')[0]!;
    // The reference serves the interface at its root: a route under another path is not one of its routes.
    if (!kind.operation || kind.basePath !== '') { done({ reply: notFound(method, path()), answering: sample }); return; }
    const op = kind.operation;
    if (method === 'OPTIONS') { done({ reply: { status: b.optionsStatus, headers: b.optionsHeaders, body: '' }, answering: sample }); return; }
    if (method !== 'POST') {
      // A judging reference names the rule a wrong method breaks (the body calls nothing: not read).
      const breaks = received ? this.observer?.judgeRequest?.(received) ?? [] : [];
      done({ reply: serviceStackError(405, 'NotImplementedException', `${op.name} does not support ${method.slice(0, 20)}; use POST${blameOf({ breaks })}`, { allow: 'POST, OPTIONS' }), answering: sample });
      return;
    }
    if (kind.route === 'soap11' && kind.selector === 'query' && !b.honourSoapFormatQuery) { done({ reply: notFound(method, path()), answering: sample }); return; }

    readBody(req, this.maxBody, (body) => {
      if (!body && received) received.bodyLeftOut = true;
      const known = form && body && knownAnswer(form, body);
      if (known) { done(known); return; }
      let answered: Answered;
      try {
        answered = body ? this.answerBody(req, method, op, kind, body, received) : { reply: serviceStackError(413, 'RequestEntityTooLargeException', `The request body exceeds ${this.maxBody} bytes`, { connection: 'close' }), answering: sample };
      } catch {
        answered = { reply: internalError(), answering: sample };
      }
      // Kept only for a profile that edits no reply: an edit may read any header, not only the form's.
      if (form && body && answered.sample && !answered.answering.profile.editReply.length) {
        prepared(answered.reply);
        keepAnswer(form, body, answered);
      }
      done(answered);
    });
  }

  private answerBody(req: IncomingMessage, method: string, op: Operation, kind: RequestKind, body: Buffer, received: MutableReceived | undefined): Answered {
    let broken: readonly string[] = [];
    if (received) {
      Object.assign(received, requestBodyOf(body));
      broken = this.observer?.judgeRequest?.(received) ?? [];
    }
    const ctx: RequestContext = { method, headers: req.headers, body, ...(broken.length ? { breaks: broken } : {}) };
    if (!isJsonOperation(op)) return this.soapAnswer(ctx, this.sample);
    const bound = bindJsonRequest(op, ctx);
    if ('error' in bound) return { reply: bound.error, answering: this.sample };
    const { account, answering } = this.accountOf(op, bound.dto);
    const render: Render = (o, format) => answering.render(o, format, account);
    return { ...answerJson(op, kind, bound.dto, answering.profile.behaviour, render), answering, dto: bound.dto, ...(account ? {} : { sample: true }) };
  }
}

/** Writes the reply; what was written (undefined when nothing was: the socket is gone, or dropped). */
function send(res: ServerResponse, r: Reply): Prepared | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  if (r.drop) { res.socket?.destroy(); return undefined; }
  const p = PREPARED.get(r) ?? prepare(r);
  try {
    res.writeHead(p.status, p.head as string[]);
  } catch {
    // A variant set a header Node cannot send (a character outside Latin-1): say so, never hang.
    const failed = serviceStackError(500, 'InvalidOperationException', 'The reference built a header it cannot send');
    res.writeHead(failed.status, failed.headers);
    res.end(failed.body);
    return { status: failed.status, head: Object.entries(failed.headers).flat(), body: Buffer.from(failed.body) };
  }
  res.end(p.body);
  return p;
}

/** Each written reply's head as a header map (for an observer), made once: the same object for every
 *  answer of one prepared reply, which an observer may key what it learned of that answer on. */
const HEADERS = new WeakMap<Prepared, Readonly<Record<string, string>>>();

function headersOf(p: Prepared): Readonly<Record<string, string>> {
  let headers = HEADERS.get(p);
  if (!headers) {
    const map: Record<string, string> = {};
    for (let i = 0; i < p.head.length; i += 2) map[p.head[i]!] = p.head[i + 1]!;
    HEADERS.set(p, (headers = map));
  }
  return headers;
}

/** A response that fails is closed (one listener for every response). */
function destroyOnError(this: ServerResponse): void { this.destroy(); }

/** One line of plain text, then the connection closed once written: left half open (as Node's
 *  server allows), a client that never closed its side kept the connection for ever. */
function closeWith(socket: Socket, status: string, body: string): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`, () => socket.destroy());
}

/** The head Node wrote for an answer, as written: its reason phrase and every field in order, those
 *  Node adds (Date, Connection, Keep-Alive) among them, which the reply's own fields leave out (the
 *  judging reference showed an answer without them). Read from the text Node keeps of it
 *  (`_header`, set once the head is written); nothing where it keeps none. */
function writtenHead(res: ServerResponse): { reason: string; rawHeaders: string[] } | Record<string, never> {
  const head = (res as unknown as { _header?: unknown })._header;
  if (typeof head !== 'string') return {};
  const [statusLine = '', ...lines] = head.split('\r\n');
  const rawHeaders: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) rawHeaders.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return { reason: /^HTTP\/\d\.\d \d{3} ?(.*)$/.exec(statusLine)?.[1] ?? '', rawHeaders };
}

/** A request the reference does not read, answered in one line of plain text, its connection closed. */
function refuse(res: ServerResponse, status: number, body: string): void {
  res.on('error', destroyOnError);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/** Requests Node's parser passes but the reference cannot read as sent, refused unread and unjudged:
 *  a transfer coding other than chunked (Node reads `gzip, chunked` as chunked, and the body as if
 *  it were not gzip) 501 (RFC 9112, 6.1); an HTTP/1.1 request without Host 400 (RFC 9112, 3.2),
 *  which Node answered with no word of why; a request asking to upgrade with a body 400 (its body is
 *  never read: asksUpgrade), and whatever a connection sent behind one asking to upgrade. */
function readable(inner: RequestListener, refused: (why: string) => void, unanswered: Unanswered): RequestListener {
  return (req, res) => {
    // Behind a request asking to upgrade (asksUpgrade): what Node parsed after it is not what the
    // client sent after it. Neither answered nor judged (counted so): Node closes the connection once
    // that request's answer is written (its shouldKeepAlive), which may still be coming.
    if (upgraded.has(req.socket)) {
      unanswered.closed++;
      return;
    }
    const other = req.headers['transfer-encoding']?.split(',').map((c) => c.trim().toLowerCase()).find((c) => c !== 'chunked');
    const upgrade = asksUpgrade(req);
    if (upgrade) upgraded.add(req.socket);
    if (upgrade && declaresBody(req)) {
      refused('Upgrade with a body (400)');
      refuse(res, 400, 'Bad Request: a request asking to upgrade its connection (Connection: upgrade) with a body: its body is not read');
    } else if (other !== undefined) {
      refused('transfer coding other than chunked (501)');
      refuse(res, 501, `Not Implemented: the transfer coding ${JSON.stringify(other.slice(0, 40))} is not supported; send the body as it is, or chunked`);
    } else if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      refused('HTTP/1.1 without Host (400)');
      refuse(res, 400, 'Bad Request: an HTTP/1.1 request names its Host');
    } else {
      // Answered as any other (RFC 9110 7.8: a server may ignore Upgrade), then its connection closed.
      if (upgrade) res.shouldKeepAlive = false;
      inner(req, res);
    }
  };
}

/** Connections that sent a request asking to upgrade: closed after its answer, nothing behind it served. */
const upgraded = new WeakSet<Socket>();

/** An Expect other than 100-continue (Node answered 417 with no word of why). */
function unmetExpectation(refused: (why: string) => void): RequestListener {
  return (req, res) => {
    refused('Expect other than 100-continue (417)');
    refuse(res, 417, `Expectation Failed: only "100-continue" is met, not ${JSON.stringify(String(req.headers.expect).slice(0, 40))}`);
  };
}

/** Pipelined requests of one connection answered per turn of the event loop while other connections
 *  are served (with an observer: judging a request costs many times answering it). */
export const PIPELINED_PER_TURN = 16;
/** Pipelined requests of one connection waiting their turn at most; past it the connection is cut. */
export const MAX_WAITING = 1000;

/** Requests not answered because their connection was cut or closed while they waited their turn. */
export interface Unanswered { cut: number; closed: number }

/**
 * Answers a connection's requests PIPELINED_PER_TURN at a time per turn of the loop, the rest waiting
 * in order: Node hands over every request of a read at once, and a client pipelining 10 000 on one
 * connection had them all answered and judged before any other client's (10 s at the judging
 * reference). Past MAX_WAITING waiting the connection is cut, as the proxy cuts one: Node reads on
 * while they wait, each request held in memory. Those never answered are counted (`unanswered`).
 */
function inTurns(inner: RequestListener, unanswered: Unanswered): RequestListener {
  interface Turn { handled: number; readonly waiting: [IncomingMessage, ServerResponse][] }
  const turns = new Map<Socket, Turn>();
  // Counted as the connection closes: a report written then states them.
  const watched = new WeakSet<Socket>();
  const watch = (socket: Socket) => {
    if (watched.has(socket)) return;
    watched.add(socket);
    socket.once('close', () => {
      const turn = turns.get(socket);
      if (turn) { unanswered.closed += turn.waiting.length; turn.waiting.length = 0; }
    });
  };
  const next = (socket: Socket, turn: Turn) => {
    turn.handled = 0;
    while (turn.waiting.length && turn.handled < PIPELINED_PER_TURN) {
      const [req, res] = turn.waiting.shift()!;
      if (socket.destroyed) { unanswered.closed += turn.waiting.length + 1; turn.waiting.length = 0; break; }
      turn.handled++;
      inner(req, res);
    }
    // Scheduled again while this turn answered any: the next turn starts at 0.
    if (turn.handled) setImmediate(next, socket, turn);
    else turns.delete(socket);
  };
  const cut = new WeakSet<Socket>();
  return (req, res) => {
    const socket = req.socket;
    // Node hands over the rest of a read after its connection was cut or closed: none answered.
    if (socket.destroyed) { unanswered[cut.has(socket) ? 'cut' : 'closed']++; return; }
    let turn = turns.get(socket);
    if (!turn) {
      turns.set(socket, (turn = { handled: 0, waiting: [] }));
      setImmediate(next, socket, turn);
    }
    if (!turn.waiting.length && turn.handled < PIPELINED_PER_TURN) {
      turn.handled++;
      inner(req, res);
    } else if (turn.waiting.length >= MAX_WAITING) {
      unanswered.cut += turn.waiting.length + 1;
      turn.waiting.length = 0;
      cut.add(socket);
      socket.destroy();
    } else {
      watch(socket);
      turn.waiting.push([req, res]);
    }
  };
}

/** Whether the client of a connection keeps the reference waiting now (`res`: the answer to its
 *  last request): answers written that its side does not take (bytes left in the socket), or that
 *  request's body not whole while the reference reads the connection. Not when the reference holds
 *  it: a pipelined request waiting its turn (inTurns), whose unread body made Node stop reading the
 *  connection, nor answers queued behind one not made yet (latency, a host's route). Judged by the
 *  last request and its answer alone, an honest pipelining client was closed as stalled at the bound. */
function clientHolds(res: ServerResponse): boolean {
  const socket = res.req.socket;
  return socket.writableLength > 0 || (!res.req.complete && !socket.isPaused());
}

/** How long the reference keeps an idle connection (Node's default is 5 s). */
export const REFERENCE_KEEP_ALIVE_MS = 65_000;
/** How long a client has for a whole request after its first byte (past it, 408 and closed). */
export const REQUEST_MS = 30_000;

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const variants = options.variants ?? [];
  const ns: ServiceNamespaces = { ...DEFAULT_NAMESPACES, ...options.namespaces };
  const samples = { userDetails: options.userDetails ?? referenceUserDetails(), confirmation: options.confirmation ?? referenceConfirmation() };
  const population = new ByteLru<Written>(options.answerCacheBytes ?? ANSWER_CACHE_BYTES);
  const faulty = new Answering(profileOf(variants), ns, samples, 'f', population);
  const rate = options.faultRate ?? 1;
  // Below rate 1, the accounts a fault misses are answered with the styles alone.
  const clean = rate >= 1 ? faulty : new Answering(profileOf(variants.filter((v) => !isFault(v))), ns, samples, 'c', population);
  const sampleOnly = options.sampleOnly ?? (options.userDetails !== undefined || options.confirmation !== undefined);
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const reference = new Reference(faulty, clean, rate, ns, sampleOnly, maxBody, options.observer);
  const latency = faulty.profile.behaviour.latencyMs + (options.latencyMs ?? 0);

  // Idle connections are kept far longer than a client of the harness keeps one (CLIENT_KEEP_ALIVE_MS):
  // the client, not the server, closes them, so no request meets a socket the server is closing.
  const headMs = options.connections?.headMs ?? 10_000;
  const requestMs = options.connections?.requestMs ?? REQUEST_MS;
  // A request's body comes whole within requestMs of its first byte (Node's requestTimeout: it fits,
  // the reference taking every body as it comes, never holding one back), checked as often as the
  // guard sweeps (Node's 30 s made it 30 to 60 s). Heads are the guard's, which counts them: Node's
  // headersTimeout off, else it raced the guard to close a trickled head.
  // A missing Host is refused in words by readable(), not by Node with an empty 400.
  const limits = { requireHostHeader: false, requestTimeout: requestMs, headersTimeout: 0, keepAliveTimeout: REFERENCE_KEEP_ALIVE_MS, connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(requestMs / 4))) };
  const observer = options.observer;
  const answered = observer?.answered;
  const respond = latency > 0
    ? (res: ServerResponse, r: Reply, after?: (w: Prepared) => void) => {
      const timer = setTimeout(() => {
        const w = send(res, r);
        if (after && w) after(w);
      }, latency);
      res.on('close', () => clearTimeout(timer));
    }
    : (res: ServerResponse, r: Reply, after?: (w: Prepared) => void) => {
      const w = send(res, r);
      if (after && w) after(w);
    };
  // Without an observer nothing reads the request's time, its header map or its text: none is built.
  const listener: RequestListener = observer
    ? (req, res) => {
      res.on('error', destroyOnError);
      const startedAt = new Date();
      const t0 = performance.now();
      const received: MutableReceived = { method: req.method ?? 'GET', url: req.url ?? '/', headers: exchangeHeaders(rawPairs(req.rawHeaders)), rawHeaders: req.rawHeaders };
      // The body as the client got it: Node writes none to a HEAD.
      const after = answered && ((w: Prepared) => answered(received, { status: w.status, headers: headersOf(w), body: received.method === 'HEAD' ? EMPTY : w.body, ...writtenHead(res) }, startedAt.toISOString(), performance.now() - t0));
      try {
        reference.handle(req, received, (r) => respond(res, r, after));
      } catch {
        respond(res, internalError());
      }
    }
    : (req, res) => {
      res.on('error', destroyOnError);
      try {
        reference.handle(req, undefined, (r) => respond(res, r));
      } catch {
        respond(res, internalError());
      }
    };
  // Requests closed before their body came whole: past requestMs, and at the bound for a new one.
  let timedOut = 0;
  let atBound = 0;
  // At the bound, a request whose client keeps it waiting is closed for a new connection (see the
  // guard): else a peer re-sending a head and part of a body as each was cut held every slot.
  const stalls: Stalls = {
    stalled: (_socket, res) => clientHolds(res),
    closing: (_socket, res) => { if (!res.req.complete) atBound++; },
  };
  // No peer stops the reference by holding connections (idle, trickling a head or a body, reading
  // no answer): they are bounded in time and in number, one descriptor each.
  const server = options.tls ? createTlsServer({ ...limits, ...options.tls }) : createServer(limits);
  const guard = new ConnectionGuard(server, { headMs, keepAliveMs: limits.keepAliveTimeout, headBytes: maxHeaderSize, ...(options.connections?.max !== undefined ? { maxConnections: options.connections.max } : {}) }, 1, stalls);
  // Requests refused before they were read, answered in one line and never judged: how many, by why.
  const unread = new Map<string, number>();
  const refused = (why: string) => { unread.set(why, (unread.get(why) ?? 0) + 1); };
  // With an observer, one connection's pipelined requests take turns with other connections.
  const unanswered: Unanswered = { cut: 0, closed: 0 };
  server.on('request', guard.listener(observer ? inTurns(readable(listener, refused, unanswered), unanswered) : readable(listener, refused, unanswered)));
  server.on('checkExpectation', guard.listener(unmetExpectation(refused)));
  // Expect: 100-continue: "go on" only to a body the reference will read. One declared past its cap
  // is answered 413 (and the connection closed) at once, its body never asked for (RFC 9110 10.1.1);
  // Node's own answer sent 100 first, and the client uploaded it all to be refused.
  // In turns as any other request where they are (the judging reference's pipelining bounds): past
  // them, 20 000 pipelined requests expecting 100 were answered and judged all at once.
  const continued = readable((req, res) => {
    if (!declaredPast(req, maxBody)) res.writeContinue();
    listener(req, res);
  }, refused, unanswered);
  server.on('checkContinue', guard.listener(observer ? inTurns(continued, unanswered) : continued));
  // Every header a client sent is read (the judging reference judges them, repeats included): Node
  // lists only the first 2 000 while its parser frames the body by any of them. The head stays
  // bounded by Node's maxHeaderSize (16 KiB).
  server.maxHeadersCount = 0;
  // Malformed HTTP: answer 400 when the socket still can, never an unhandled error; a head past
  // Node's maxHeaderSize 431 (RFC 6585, section 5), as Node answers it itself; a request not whole
  // in time 408. Nothing is written within or after an answer to the request at fault (one answered
  // before its body came: judged as answered), only closed. A request after whole ones still being
  // answered (pipelined in one write: Node reads on past them at once) is answered after them, in
  // order (RFC 9112 9.3.2): its 400 written at once went out as the answer to the first of them.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const last = guard.lastResponse(socket as Socket);
    if (socket.writable && last?.req.complete && !last.writableFinished) {
      last.once('finish', () => answerFault(err, socket as Socket));
      last.once('close', () => { if (!last.writableFinished) socket.destroy(); });
      return;
    }
    if (!socket.writable || (last?.headersSent && (!last.req.complete || !last.writableFinished))) { socket.destroy(); return; }
    answerFault(err, socket as Socket);
  });
  /** The one-line answer to a request Node could not read, its connection closed. */
  const answerFault = (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (!socket.writable) { socket.destroy(); return; }
    const late = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (late) timedOut++;
    const [status, body] = late ? ['408 Request Timeout', `Request Timeout: the request was not whole ${seconds(requestMs)} after its first byte`]
      : err.code === 'HPE_HEADER_OVERFLOW' ? ['431 Request Header Fields Too Large', `Request Header Fields Too Large: the request's head passed ${maxHeaderSize} bytes`]
        : ['400 Bad Request', `Bad Request: ${err.code === 'HPE_INVALID_METHOD' ? 'unknown HTTP method' : 'malformed HTTP request'}`];
    if (!late) refused(`${err.code === 'HPE_HEADER_OVERFLOW' ? `head past ${maxHeaderSize} bytes` : err.code === 'HPE_INVALID_METHOD' ? 'unknown method' : 'malformed HTTP'} (${status.slice(0, 3)})`);
    closeWith(socket, status, body);
  };
  // CONNECT asks for a tunnel: Node closes it without a word when nothing listens for it.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    refused('CONNECT (405)');
    closeWith(socket, '405 Method Not Allowed', 'Method Not Allowed: CONNECT is not served here (the reference is no proxy)');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    get answerCache() { return { entries: population.size, bytes: population.bytes, maxBytes: population.maxBytes }; },
    get connections() { return guard.counts; },
    connectionsNote: () => {
      const { stalled } = guard.counts;
      const lines = [
        guard.note(),
        ...(stalled ? [`of those ${stalled}, ${[...(atBound ? [`${atBound} had not sent it whole (not answered, so not judged)`] : []), ...(stalled > atBound ? [`${stalled - atBound} had been answered (the answer not read)`] : [])].join(', ')}`] : []),
        ...(unanswered.cut || unanswered.closed ? [`${unanswered.cut + unanswered.closed} pipelined request(s) were never answered, so not judged: ${[...(unanswered.cut ? [`${unanswered.cut} on connection(s) cut with more than ${MAX_WAITING} waiting their turn`] : []), ...(unanswered.closed ? [`${unanswered.closed} whose connection closed while they waited`] : [])].join(', ')}`] : []),
        ...(timedOut ? [`${timedOut} request(s) were not whole ${seconds(requestMs)} after their first byte: answered 408 and their connection closed, not judged`] : []),
        ...(unread.size ? [`${[...unread.values()].reduce((a, b) => a + b)} request(s) were refused unread, each answered in one line, not judged: ${[...unread].map(([why, n]) => `${n} ${why}`).join(', ')}`] : []),
      ].filter((l) => l !== undefined);
      return lines.length ? lines.join('; ') : undefined;
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
