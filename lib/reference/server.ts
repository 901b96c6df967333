// The reference implementation on node:http: a shell that reads a request, lets the route's
// endpoint answer, and writes the reply. It never throws at a caller and never waits forever.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exchangeHeaders, requestBodyOf } from '../http/exchange.js';
import { classify, isJsonOperation, type Format, type RequestKind } from '../contract/classify.js';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import { login, type JsonOperation } from '../contract/operations.js';
import { Confirmation, UserDetails } from '../contract/records.js';
import type { JsonObject } from '../json/value.js';
import { writeJson } from '../json/write.js';
import { writeXml, type XmlWriteStyle } from '../xml/write.js';
import { referenceConfirmation, referenceUserDetails } from './data.js';
import { notFound, serviceStackError } from './error-replies.js';
import { answerJson, bindJsonRequest, type Render } from './json-endpoint.js';
import { recordToJson } from './json-record.js';
import { accountKey, hitByFault, isSampleAccount, populationRecord } from './population.js';
import { profileOf, writerStyle, type Profile, type Served, type Variant } from './profile.js';
import { blameOf, reply, type Reply, type RequestContext } from './reply.js';
import { checkSoapRequest } from './soap-endpoint.js';
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
  /** Someone watching every request (the judging reference); the reference answers as it always does. */
  readonly observer?: ReferenceObserver;
}

/** A request as the reference received it: lower-case header names, the body as text when read. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** The body's bytes are not UTF-8: where the first bad one is (see lib/http/exchange.ts). */
  readonly notUtf8At?: number;
}

/** Hooks a host of the reference can set; the reference itself knows nothing of checks or reports. */
export interface ReferenceObserver {
  /** Before answering a request with a body: names of the rules it breaks, which an error answer to it
   *  then names ("… (fails REQ-JSON-TYPES)"), so a client's developer reads what to fix. */
  readonly judgeRequest?: (request: ReceivedRequest) => readonly string[];
  /** After answering: the request and the answer as written. */
  readonly answered?: (request: ReceivedRequest, answer: { status: number; headers: Readonly<Record<string, string>>; body: Buffer }, startedAt: string, durationMs: number) => void;
  /** A route of the host's own (GET /__conformance/report): its reply, or undefined for the interface's. */
  readonly ownRoute?: (request: ReceivedRequest) => Promise<Reply> | undefined;
}


export interface RunningReference {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;

type BodyResult = { ok: true; body: Buffer } | { ok: false };

/** Reads at most `max` bytes; past that, stops buffering and reports "too large". */
function readBody(req: IncomingMessage, max: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve({ ok: false });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume(); // keep draining so the client can read our 413
        resolve({ ok: false });
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve({ ok: true, body: Buffer.concat(chunks) }));
    req.on('error', () => resolve({ ok: false }));
  });
}

/** One way of answering: a profile (the variants applied) with its writers and its cache. */
class Answering {
  /** The sample account's bodies depend only on operation and format, so each is written once. */
  private readonly cache = new Map<string, { mediaType: string; body: Buffer }>();
  private readonly xmlStyle: XmlWriteStyle;
  readonly faultStyle: XmlWriteStyle;
  readonly samples: { userDetails: JsonObject; confirmation: JsonObject };

  constructor(readonly profile: Profile, private readonly ns: ServiceNamespaces, given: { userDetails: JsonObject; confirmation: JsonObject }) {
    this.xmlStyle = writerStyle(profile.xmlStyle, ns);
    // faultcode is a QName ("s:Client"), so a Fault is always written with the envelope as "s".
    this.faultStyle = writerStyle({ ...profile.xmlStyle, prefixes: { ...profile.xmlStyle.prefixes, envelope: 's' } }, ns);
    this.samples = { userDetails: this.data('userDetails', given.userDetails), confirmation: this.data('confirmation', given.confirmation) };
  }

  private data(record: 'userDetails' | 'confirmation', given: JsonObject): JsonObject {
    return this.profile.editData.reduce((d, edit) => edit(d, record), given);
  }

  /** The sample record (cached) or an account's own record. */
  render(op: JsonOperation, format: Format, own?: JsonObject): { mediaType: string; body: Buffer } {
    if (own) return this.write(op, format, this.data(op === login ? 'userDetails' : 'confirmation', own));
    const key = `${op.key}:${format}`;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.write(op, format, op === login ? this.samples.userDetails : this.samples.confirmation);
      this.cache.set(key, hit);
    }
    return hit;
  }

  private write(op: JsonOperation, format: Format, data: JsonObject): { mediaType: string; body: Buffer } {
    const shape = op === login ? UserDetails : Confirmation;
    const b = this.profile.behaviour;
    if (format === 'json') {
      const node = this.profile.editJson.reduce((n, edit) => edit(n, op), recordToJson(shape, data, this.profile.jsonBuild));
      return { mediaType: b.jsonMediaType, body: Buffer.from(writeJson(node, this.profile.jsonStyle)) };
    }
    const xml = recordToXml(shape, data, this.ns, this.profile.soapBuild);
    if (format === 'xml') return { mediaType: b.xmlMediaType, body: Buffer.from(writeXml(xml, { ...this.xmlStyle, declaration: true })) };
    const env = this.profile.editSoap.reduce((e, edit) => edit(e), soapEnvelope(xml, b.soapHeader));
    return { mediaType: b.soapMediaType, body: Buffer.from(writeXml(env, this.xmlStyle)) };
  }
}

class Reference {
  constructor(
    /** With every variant, and with the styles only: a fault hits `faultRate` of the accounts. */
    private readonly faulty: Answering,
    private readonly clean: Answering,
    private readonly faultRate: number,
    private readonly ns: ServiceNamespaces,
    private readonly sampleOnly: boolean,
    private readonly maxBody: number,
    private readonly observer?: ReferenceObserver,
  ) {}

  /** The account's own record (undefined for the sample account) and the answering it gets. */
  private accountOf(op: JsonOperation | undefined, dto: JsonObject | undefined): { own?: JsonObject; answering: Answering } {
    const sample = !op || !dto || this.sampleOnly || isSampleAccount(op, dto, String(this.faulty.samples.userDetails.userName ?? ''));
    const key = op && dto && !sample ? accountKey(op, dto) : 'sample';
    const answering = hitByFault(key, this.faultRate) ? this.faulty : this.clean;
    return sample ? { answering } : { own: populationRecord(op!, dto!), answering };
  }

  private soapReply(ctx: RequestContext, answering: Answering): Reply {
    const outcome = checkSoapRequest(ctx, this.ns);
    if (!outcome.ok) return reply(outcome.status, answering.profile.behaviour.soapMediaType, writeXml(soapFault(outcome.code, `${outcome.message}${blameOf(ctx)}`), answering.faultStyle));
    const written = answering.render(login, 'soap11'); // ImpersonateLogoutRequest answers the same record as a login
    return reply(200, written.mediaType, written.body);
  }

  /** The reply, then every editReply of the answering profile (faults and styles at the HTTP level);
   *  with the request as received, for an observer. */
  async handle(req: IncomingMessage): Promise<{ reply: Reply; received: ReceivedRequest }> {
    const method = req.method ?? 'GET';
    const received: { -readonly [K in keyof ReceivedRequest]: ReceivedRequest[K] } = { method, url: req.url ?? '/', headers: exchangeHeaders(Object.entries(req.headers)) };
    const own = this.observer?.ownRoute?.(received);
    if (own) return { reply: await own, received };
    const kind = classify({ method, url: req.url ?? '/', headers: req.headers });
    const { reply: r, jsonp, answering, dto } = await this.answer(req, method, kind, received);
    const served: Served = { method, kind, headers: req.headers, ...(jsonp ? { jsonp } : {}), ...(dto ? { dto } : {}) };
    return { reply: answering.profile.editReply.reduce((acc, edit) => edit(acc, served), r), received };
  }

  private async answer(req: IncomingMessage, method: string, kind: RequestKind, received: { body?: string }): Promise<{ reply: Reply; jsonp?: boolean; answering: Answering; dto?: JsonObject }> {
    const sample = this.accountOf(undefined, undefined).answering;
    const b = sample.profile.behaviour;
    const path = (req.url ?? '/').split('?')[0]!;
    // The reference serves the interface at its root: a route under another path is not one of its routes.
    if (!kind.operation || kind.basePath !== '') return { reply: notFound(method, path), answering: sample };
    const op = kind.operation;
    if (method === 'OPTIONS') return { reply: { status: b.optionsStatus, headers: b.optionsHeaders, body: '' }, answering: sample };
    if (method !== 'POST') {
      // A judging reference names the rule a wrong method breaks (the body calls nothing: not read).
      const breaks = this.observer?.judgeRequest?.(received as ReceivedRequest) ?? [];
      return { reply: serviceStackError(405, 'NotImplementedException', `${op.name} does not support ${method.slice(0, 20)}; use POST${blameOf({ breaks })}`, { allow: 'POST, OPTIONS' }), answering: sample };
    }
    if (kind.route === 'soap11' && kind.selector === 'query' && !b.honourSoapFormatQuery) return { reply: notFound(method, path), answering: sample };

    const read = await readBody(req, this.maxBody);
    if (!read.ok) {
      return { reply: serviceStackError(413, 'RequestEntityTooLargeException', `The request body exceeds ${this.maxBody} bytes`, { connection: 'close' }), answering: sample };
    }
    Object.assign(received, requestBodyOf(read.body));
    const broken = this.observer?.judgeRequest?.(received as ReceivedRequest) ?? [];
    const ctx: RequestContext = { method, headers: req.headers, body: read.body, ...(broken.length ? { breaks: broken } : {}) };
    if (!isJsonOperation(op)) return { reply: this.soapReply(ctx, sample), answering: sample };
    const bound = bindJsonRequest(op, ctx);
    if ('error' in bound) return { reply: bound.error, answering: sample };
    const { own, answering } = this.accountOf(op, bound.dto);
    const render: Render = (o, format) => answering.render(o, format, own);
    return { ...answerJson(op, kind, bound.dto, answering.profile.behaviour, render), answering, dto: bound.dto };
  }
}

/** Writes the reply; what was written (undefined when nothing was: the socket is gone, or dropped). */
function send(res: ServerResponse, r: Reply): { status: number; headers: Record<string, string>; body: Buffer } | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  if (r.drop) { res.socket?.destroy(); return undefined; }
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  const headers = { ...r.headers, 'content-length': String(body.length) };
  try {
    res.writeHead(r.status, headers);
  } catch {
    // A variant set a header Node cannot send (a character outside Latin-1): say so, never hang.
    const failed = serviceStackError(500, 'InvalidOperationException', 'The reference built a header it cannot send');
    res.writeHead(failed.status, failed.headers);
    res.end(failed.body);
    return { status: failed.status, headers: { ...failed.headers }, body: Buffer.from(failed.body) };
  }
  res.end(body);
  return { status: r.status, headers, body };
}

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const variants = options.variants ?? [];
  const ns: ServiceNamespaces = { ...DEFAULT_NAMESPACES, ...options.namespaces };
  const samples = { userDetails: options.userDetails ?? referenceUserDetails(), confirmation: options.confirmation ?? referenceConfirmation() };
  const faulty = new Answering(profileOf(variants), ns, samples);
  const rate = options.faultRate ?? 1;
  // Below rate 1, the accounts a fault misses are answered with the styles alone.
  const clean = rate >= 1 ? faulty : new Answering(profileOf(variants.filter((v) => !isFault(v))), ns, samples);
  const sampleOnly = options.sampleOnly ?? (options.userDetails !== undefined || options.confirmation !== undefined);
  const reference = new Reference(faulty, clean, rate, ns, sampleOnly, options.maxBodyBytes ?? MAX_BODY_BYTES, options.observer);
  const latency = faulty.profile.behaviour.latencyMs + (options.latencyMs ?? 0);

  const limits = { requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 };
  const answered = options.observer?.answered;
  const listener: RequestListener = (req, res) => {
    res.on('error', () => res.destroy());
    const startedAt = new Date();
    const t0 = performance.now();
    reference.handle(req)
      .catch(() => ({ reply: serviceStackError(500, 'InternalServerError', 'The reference failed to answer this request') as Reply, received: undefined }))
      .then(({ reply: r, received }) => {
        const answer = () => {
          const written = send(res, r);
          if (answered && received && written) answered(received, written, startedAt.toISOString(), performance.now() - t0);
        };
        if (latency > 0) {
          const timer = setTimeout(answer, latency);
          res.on('close', () => clearTimeout(timer));
        } else {
          answer();
        }
      });
  };
  const server = options.tls ? createTlsServer({ ...limits, ...options.tls }, listener) : createServer(limits, listener);
  // Malformed HTTP: answer 400 when the socket still can, never an unhandled error.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) { socket.destroy(); return; }
    const why = err.code === 'HPE_INVALID_METHOD' ? 'unknown HTTP method' : err.code === 'HPE_HEADER_OVERFLOW' ? 'headers too large' : 'malformed HTTP request';
    const body = `Bad Request: ${why}`;
    socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
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
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
