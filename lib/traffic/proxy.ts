// Live traffic: a reverse proxy that forwards every request to the target and every answer back as
// it came (status and reason phrase, headers in their order and letter case, body bytes streamed),
// and hands a copy of each finished exchange to whoever judges it, off the forwarding path. Only
// hop-by-hop headers are made again for each hop (RFC 9110 7.6.1) and Host names the target. The
// copy of a body stops at the body cap; the bytes forwarded never do. Nothing here knows of checks.
import { createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { exchangeHeaders, rawPairs, recordedResponse, requestBodyOf, type Exchange, type TransportError } from '../http/exchange.js';

export interface ProxyOptions {
  /** The deployment every request is forwarded to (its path is the prefix of every forwarded path). */
  readonly target: string;
  readonly port: number;
  readonly host?: string;
  /** A body longer than this is forwarded whole, but copied only this far (and the exchange says so). */
  readonly maxBodyBytes: number;
  /** No answer headers from the target within this time: 504 to the client (a body, once it
   *  streams, is not timed: the client decides how long it waits, as it would without the proxy). */
  readonly timeoutMs: number;
  /** Called with each finished exchange, after its answer reached the client. */
  readonly onExchange: (ex: Exchange) => void;
}

export interface RunningProxy {
  readonly url: string;
  readonly port: number;
  /** Exchanges still being forwarded. */
  readonly inFlight: () => number;
  /** Stops accepting; waits up to `graceMs` for the exchanges in flight, then cuts them. */
  close(graceMs: number): Promise<void>;
}

/** Headers larger than Node's 16 KiB default pass (a long cookie, a big token): a proxy must not
 *  refuse what the target would take, nor drop an answer the client would read. */
const MAX_HEADER_BYTES = 256 * 1024;

/** Hop-by-hop headers: they describe one connection, so each hop makes its own (RFC 9110 7.6.1). */
// (Trailer is not one: RFC 9110 6.6.2 makes it end to end, and the trailers it announces are relayed.)
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'transfer-encoding', 'upgrade']);

/** Raw headers ([name, value, name, value, …], as received) without the hop-by-hop ones, in order and case. */
function endToEnd(raw: readonly string[], replaceHost?: string): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (named.has(name)) continue;
    out.push(raw[i]!, name === 'host' && replaceHost ? replaceHost : raw[i + 1]!);
  }
  return out;
}


/** Copies chunks up to a cap; past it, remembers only that there was more. */
class BodyCopy {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  over = false;
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    if (this.over) return;
    if (this.size + chunk.length > this.cap) { this.over = true; this.chunks.length = 0; return; }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  get bytes(): Buffer { return Buffer.concat(this.chunks); }
}

/** The body as the judge reads it: decoded from its Content-Encoding within the cap (the client got
 *  the encoded bytes; the checks judge what they mean). Undefined when it cannot be decoded in the cap. */
function decoded(body: Buffer, encoding: string | undefined, cap: number): Buffer | undefined {
  const e = encoding?.trim().toLowerCase();
  if (!e || e === 'identity') return body;
  try {
    if (e === 'gzip' || e === 'x-gzip') return gunzipSync(body, { maxOutputLength: cap });
    if (e === 'deflate') return inflateSync(body, { maxOutputLength: cap });
    if (e === 'br') return brotliDecompressSync(body, { maxOutputLength: cap });
  } catch {
    return undefined;
  }
  return undefined;
}

/** A failed forward as the exchange records it. */
function transportError(e: NodeJS.ErrnoException, target: string): TransportError {
  const where = new URL(target).host;
  switch (e.code) {
    case 'ECONNREFUSED': return { kind: 'refused', message: `connection refused by ${where}` };
    case 'ENOTFOUND': case 'EAI_AGAIN': return { kind: 'dns', message: `host not found: ${new URL(target).hostname}` };
    case 'ECONNRESET': return { kind: 'reset', message: `the connection to ${where} was reset` };
    case 'ETIMEDOUT': return { kind: 'headers-timeout', message: `no answer from ${where} in time` };
    default: return e.code?.startsWith('ERR_TLS') || e.code?.includes('CERT') ? { kind: 'tls', message: `TLS failure with ${where}: ${e.code}` } : { kind: 'other', message: `cannot forward to ${where}: ${e.code ?? 'error'}` };
  }
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/$/, '');
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  // The target's address once, as options: no URL is parsed per request.
  const to = { protocol: target.protocol, hostname: target.hostname.replace(/^\[|\]$/g, ''), port: target.port || undefined, setHost: false };
  let n = 0;
  let active = 0;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    active++;
    const id = `proxy.${++n}`;
    const startedAt = new Date().toISOString();
    const t0 = performance.now();
    const method = req.method ?? 'GET';
    const url = `${target.origin}${prefix}${req.url ?? '/'}`;
    const requestCopy = new BodyCopy(options.maxBodyBytes);
    const requestHeaders = exchangeHeaders(rawPairs(req.rawHeaders));
    let finished = false;
    const done = (ex: Omit<Exchange, 'id' | 'title' | 'origin' | 'request' | 'startedAt' | 'durationMs'>) => {
      if (finished) return;
      finished = true;
      active--;
      const body = requestCopy.over ? undefined : requestCopy.bytes;
      options.onExchange({
        id, title: `${method} ${(req.url ?? '/').split('?')[0]} through the proxy`, origin: { source: 'proxy', vouched: false },
        request: { method, url, headers: requestHeaders, ...(body && body.length ? requestBodyOf(body) : {}) },
        startedAt, durationMs: Math.round(performance.now() - t0), ...ex,
      });
    };

    const upstream = send({
      ...to, method, path: `${prefix}${req.url ?? '/'}`, maxHeaderSize: MAX_HEADER_BYTES,
      // Order and case as the client sent them (an array of raw pairs); Host names the target.
      headers: endToEnd(req.rawHeaders, target.host) as unknown as OutgoingHttpHeaders,
    });
    // A limit on the answer's headers only, from when the request has been sent whole (a slow upload
    // is the client's pace): one timer, not a socket timeout re-armed on every chunk. Once the answer
    // streams, how long it may take is the client's to decide, as it would be without the proxy, and
    // a client that gives up closes the target's side too.
    let noAnswer: NodeJS.Timeout | undefined;
    upstream.on('finish', () => { noAnswer = setTimeout(() => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), options.timeoutMs); });
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(noAnswer);
      const error = transportError(e, options.target);
      if (!res.headersSent) {
        const status = error.kind === 'headers-timeout' ? 504 : 502;
        res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end(`conformance proxy: ${error.message}\n`);
      } else {
        res.destroy();
      }
      done({ error });
    });
    // Early hints (103) reach the client before the answer, as they would directly.
    upstream.on('information', (info) => {
      if (info.statusCode !== 103 || res.headersSent) return;
      const hints: Record<string, string[]> = {};
      for (const [k, v] of rawPairs(info.rawHeaders)) (hints[k.toLowerCase()] ??= []).push(v);
      res.writeEarlyHints(hints);
    });
    upstream.on('response', (answer) => {
      clearTimeout(noAnswer);
      const copy = new BodyCopy(options.maxBodyBytes);
      // One listener per chunk on the forwarding path: the copy for the judge, and how much came.
      let received = 0;
      answer.on('data', (chunk: Buffer) => { copy.add(chunk); received += chunk.length; });
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders) as unknown as OutgoingHttpHeaders);
      // The body, then the trailers the target sent after it (a checksum, a status), as they came.
      answer.pipe(res, { end: false });
      answer.on('end', () => {
        if (answer.rawTrailers.length) res.addTrailers([...rawPairs(answer.rawTrailers)] as [string, string][]);
        res.end();
      });
      // The target cut its answer short (a reset, a closed socket before Content-Length's end): the
      // client's connection is cut the same way, and the exchange is judged as the reset it was.
      answer.on('error', () => res.destroy());
      answer.on('close', () => {
        if (answer.complete) return;
        res.destroy();
        done({ error: { kind: 'reset', message: `the answer from ${target.host} was cut after ${received} bytes of its body` } });
      });
      // Judged once the client has the whole answer: a judgement never delays what it reads.
      res.on('finish', () => {
        const headers = exchangeHeaders(rawPairs(answer.rawHeaders));
        if (copy.over) { done({ error: { kind: 'too-large', message: `response exceeded the ${Math.round(options.maxBodyBytes / 1024 / 1024)} MiB cap (forwarded whole)` } }); return; }
        const body = decoded(copy.bytes, headers['content-encoding'], options.maxBodyBytes);
        if (body === undefined) { done({ error: { kind: 'other', message: `a body in Content-Encoding ${headers['content-encoding']} that cannot be decoded within the cap` } }); return; }
        const { 'content-encoding': _ce, ...judged } = headers;
        done({ response: recordedResponse(answer.statusCode ?? 0, body === copy.bytes ? headers : judged, body) });
      });
    });
    req.on('data', (chunk: Buffer) => requestCopy.add(chunk));
    req.pipe(upstream);
    // A client that hangs up: nothing to judge, and the target's side is closed too.
    res.on('close', () => {
      if (!res.writableFinished) { clearTimeout(noAnswer); upstream.destroy(); if (!finished) { finished = true; active--; } }
    });
  };

  const server = createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 5_000, maxHeaderSize: MAX_HEADER_BYTES }, handle);
  server.on('clientError', (_e, socket) => { if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'); else socket.destroy(); });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const { port, address, family } = server.address() as AddressInfo;
  return {
    url: `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`,
    port,
    inFlight: () => active,
    close: async (graceMs) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      server.closeAllConnections();
      await closed;
    },
  };
}
