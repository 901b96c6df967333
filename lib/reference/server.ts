// The reference implementation on node:http: a shell that reads a request, lets the route's
// endpoint answer, and writes the reply. It never throws at a caller and never waits forever.
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { DEFAULT_NAMESPACES, type ServiceNamespaces } from '../contract/namespaces.js';
import { login, type JsonOperation } from '../contract/operations.js';
import { Confirmation, UserDetails } from '../contract/records.js';
import { writeJson, type JsonObject } from '../json/node.js';
import { writeXml, type XmlWriteStyle } from '../xml/write.js';
import { referenceConfirmation, referenceUserDetails } from './data.js';
import { notFound, serviceStackError } from './errors.js';
import { handleJsonPost, type Render } from './json-endpoint.js';
import { recordToJson } from './json-record.js';
import { profileOf, writerStyle, type Profile, type Served, type Variant } from './profile.js';
import { reply, type Reply, type RequestContext } from './reply.js';
import { resolveRoute, type Format } from './routes.js';
import { checkSoapRequest } from './soap-endpoint.js';
import { recordToXml, soapEnvelope, soapFault } from './soap-record.js';

export interface ReferenceOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  readonly namespaces?: Partial<ServiceNamespaces>;
  /** The records served; default: fixtures/reference/. */
  readonly userDetails?: JsonObject;
  readonly confirmation?: JsonObject;
  /** Faults and styles, applied in order. */
  readonly variants?: readonly Variant[];
  /** Added to the profile's latency: a delay before every response. */
  readonly latencyMs?: number;
  /** Requests with a larger body get 413. */
  readonly maxBodyBytes?: number;
  /** Serve HTTPS with this PEM key and certificate (chain). */
  readonly tls?: { readonly key: string; readonly cert: string };
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

class Reference {
  private readonly cache = new Map<string, { mediaType: string; body: Buffer }>();
  private readonly xmlStyle: XmlWriteStyle;
  private readonly faultStyle: XmlWriteStyle;

  constructor(
    private readonly profile: Profile,
    private readonly ns: ServiceNamespaces,
    private readonly records: { userDetails: JsonObject; confirmation: JsonObject },
    private readonly maxBody: number,
  ) {
    this.xmlStyle = writerStyle(profile.xmlStyle, ns);
    // faultcode is a QName ("s:Client"), so a Fault is always written with the envelope as "s".
    this.faultStyle = writerStyle({ ...profile.xmlStyle, prefixes: { ...profile.xmlStyle.prefixes, envelope: 's' } }, ns);
  }

  private record(op: JsonOperation) {
    return op === login ? { shape: UserDetails, data: this.records.userDetails } : { shape: Confirmation, data: this.records.confirmation };
  }

  /** Response bodies depend only on operation and format, so each is written once. */
  readonly render: Render = (op, format) => {
    const key = `${op.key}:${format}`;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.write(op, format);
      this.cache.set(key, hit);
    }
    return hit;
  };

  private write(op: JsonOperation, format: Format): { mediaType: string; body: Buffer } {
    const { shape, data } = this.record(op);
    const b = this.profile.behaviour;
    if (format === 'json') {
      const node = this.profile.editJson.reduce((n, edit) => edit(n, op), recordToJson(shape, data, this.profile.jsonBuild));
      return { mediaType: b.jsonMediaType, body: Buffer.from(writeJson(node, this.profile.jsonStyle)) };
    }
    const xml = recordToXml(shape, data, this.ns, this.profile.soapBuild);
    if (format === 'xml') return { mediaType: b.xmlMediaType, body: Buffer.from(writeXml(xml, { ...this.xmlStyle, declaration: true })) };
    return { mediaType: b.soapMediaType, body: Buffer.from(this.envelope(xml)) };
  }

  private envelope(record: ReturnType<typeof recordToXml>): string {
    const env = this.profile.editSoap.reduce((e, edit) => edit(e), soapEnvelope(record, this.profile.behaviour.soapHeader));
    return writeXml(env, this.xmlStyle);
  }

  private soapReply(ctx: RequestContext): Reply {
    const outcome = checkSoapRequest(ctx, this.ns);
    if (!outcome.ok) return reply(outcome.status, this.profile.behaviour.soapMediaType, writeXml(soapFault(outcome.code, outcome.message), this.faultStyle));
    const cached = this.render(login, 'soap11'); // ImpersonateLogoutRequest answers the same record as a login
    return reply(200, cached.mediaType, cached.body);
  }

  /** The reply, then every editReply of the profile (faults and styles at the HTTP level). */
  async handle(req: IncomingMessage): Promise<Reply> {
    const method = req.method ?? 'GET';
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://reference.invalid');
    } catch {
      return serviceStackError(400, 'ArgumentException', 'The request target is not a valid URL');
    }
    const { reply: r, ...how } = await this.answer(req, method, url);
    const served = { method, query: url.searchParams, headers: req.headers, ...how };
    return this.profile.editReply.reduce((acc, edit) => edit(acc, served), r);
  }

  private async answer(req: IncomingMessage, method: string, url: URL): Promise<Omit<Served, 'method' | 'query' | 'headers'> & { reply: Reply }> {
    const b = this.profile.behaviour;
    const resolved = resolveRoute(url.pathname);
    if (!resolved) return { reply: notFound(method, url.pathname) };
    const { route, extension } = resolved;

    if (method === 'OPTIONS') return { route, reply: { status: b.optionsStatus, headers: b.optionsHeaders, body: '' } };
    if (method !== 'POST') {
      return { route, reply: serviceStackError(405, 'NotImplementedException', `${route.op.name} does not support ${method.slice(0, 20)}; use POST`, { allow: 'POST, OPTIONS' }) };
    }
    if (route.kind === 'soap' && url.searchParams.has('format') && !b.honourSoapFormatQuery) return { route, reply: notFound(method, url.pathname) };

    const read = await readBody(req, this.maxBody);
    if (!read.ok) {
      return { route, reply: serviceStackError(413, 'RequestEntityTooLargeException', `The request body exceeds ${this.maxBody} bytes`, { connection: 'close' }) };
    }
    const ctx: RequestContext = { method, url, headers: req.headers, body: read.body };
    if (route.kind === 'soap') return { route, reply: this.soapReply(ctx) };
    return { route, ...handleJsonPost(route.op, route.reply, extension, ctx, b, this.render) };
  }
}

function send(res: ServerResponse, r: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const body = typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : r.body;
  try {
    res.writeHead(r.status, { ...r.headers, 'content-length': String(body.length) });
  } catch {
    // A variant set a header Node cannot send (a character outside Latin-1): say so, never hang.
    const failed = serviceStackError(500, 'InvalidOperationException', 'The reference built a header it cannot send');
    res.writeHead(failed.status, failed.headers);
    res.end(failed.body);
    return;
  }
  res.end(body);
}

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const profile = profileOf(options.variants ?? []);
  const ns: ServiceNamespaces = { ...DEFAULT_NAMESPACES, ...options.namespaces };
  const data = (record: 'userDetails' | 'confirmation', given: JsonObject) => profile.editData.reduce((d, edit) => edit(d, record), given);
  const reference = new Reference(profile, ns, {
    userDetails: data('userDetails', options.userDetails ?? referenceUserDetails()),
    confirmation: data('confirmation', options.confirmation ?? referenceConfirmation()),
  }, options.maxBodyBytes ?? MAX_BODY_BYTES);
  const latency = profile.behaviour.latencyMs + (options.latencyMs ?? 0);

  const limits = { requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 };
  const listener: RequestListener = (req, res) => {
    res.on('error', () => res.destroy());
    reference.handle(req)
      .catch(() => serviceStackError(500, 'InternalServerError', 'The reference failed to answer this request'))
      .then((r) => {
        if (latency > 0) {
          const timer = setTimeout(() => send(res, r), latency);
          res.on('close', () => clearTimeout(timer));
        } else {
          send(res, r);
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
