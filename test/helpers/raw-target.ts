// A target on a raw socket (node:net), for the validating proxy's tests: it parses requests as an
// HTTP/1.1 server does (a head, then a body framed by Content-Length or chunked, then the next
// request on the same connection), logs the request line of every request it parses, and writes
// whatever bytes `answer` gives, however malformed, with nothing of Node's HTTP in the way.
import { createServer, Socket, type AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startProxy, type ForwardedExchange, type ProxyOptions, type RunningProxy } from '../../lib/traffic/proxy.js';

export interface ParsedRequest {
  readonly line: string;
  /** Header names lower-cased; repeats joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The header lines as they came: names as spelled, in order, repeats apart. */
  readonly fields: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

export interface RawTarget {
  readonly url: string;
  /** Every request parsed so far, in order. */
  readonly requests: ParsedRequest[];
  close(): Promise<void>;
}

/** One request from the start of `buf`, and how many bytes it took; undefined while incomplete. */
function parseOne(buf: Buffer): { request: ParsedRequest; used: number } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [line = '', ...fields] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  const lines: [string, string][] = [];
  for (const f of fields) {
    const colon = f.indexOf(':');
    const value = f.slice(colon + 1).trim();
    lines.push([f.slice(0, colon), value]);
    const name = f.slice(0, colon).trim().toLowerCase();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let at = end + 4;
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    for (;;) {
      const eol = buf.indexOf('\r\n', at);
      if (eol < 0) return undefined;
      const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
      at = eol + 2;
      if (size === 0) { // trailers, then an empty line
        const stop = buf.indexOf('\r\n\r\n', at - 2);
        if (stop < 0) return undefined;
        return { request: { line, headers, fields: lines, body: Buffer.concat(parts) }, used: stop + 4 };
      }
      if (buf.length < at + size + 2) return undefined;
      parts.push(buf.subarray(at, at + size));
      at += size + 2;
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  if (buf.length < at + length) return undefined;
  return { request: { line, headers, fields: lines, body: Buffer.from(buf.subarray(at, at + length)) }, used: at + length };
}

export async function startRawTarget(answer: (request: ParsedRequest) => string | Buffer): Promise<RawTarget> {
  const requests: ParsedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (let one = parseOne(buf); one; one = parseOne(buf)) {
        buf = buf.subarray(one.used);
        requests.push(one.request);
        socket.write(answer(one.request));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => { for (const s of sockets) s.destroy(); await new Promise<void>((r) => server.close(() => r())); },
  };
}

/** A raw client: writes `bytes` on one connection and gives back everything read until the peer
 *  closes it (the requests sent ask it to, with `Connection: close`; 30 s at most, never asserted on).
 *  `halfClose`: ends its side once the bytes are written, and reads on. */
export function rawExchange(url: string, bytes: string | Buffer, halfClose = false): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let got = '';
    const socket = new Socket({ allowHalfOpen: halfClose });
    const finish = () => { clearTimeout(timer); socket.destroy(); resolve(got); };
    const timer = setTimeout(finish, 30_000);
    socket.connect(Number(port), hostname, () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

/** A raw client expecting 100 (Continue): writes `head` (a request head with `Expect: 100-continue`),
 *  sends `body` once a whole 100 head has come, and gives back everything read until a final
 *  answer's head has come (or the connection ends; 30 s at most, never asserted on). */
export function expectingExchange(url: string, head: string, body: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let got = '';
    let sent = false;
    const socket = new Socket();
    const finish = () => { clearTimeout(timer); socket.destroy(); resolve(got); };
    const timer = setTimeout(finish, 30_000);
    socket.connect(Number(port), hostname, () => socket.write(head));
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      const at = got.indexOf('HTTP/1.1 100 ');
      if (!sent && at >= 0 && got.includes('\r\n\r\n', at)) { sent = true; socket.write(body); }
      if (/HTTP\/1\.1 [2-5]\d\d [^\r]*\r\n[\s\S]*\r\n\r\n/.test(got)) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

/** A raw target behind the proxy for the tests of one file or describe block: started before them,
 *  closed after; `seen` holds every exchange the proxy forwarded. `path`: the proxy's target is the
 *  raw target's URL and this path; `proxy`: more of the proxy's options. */
export function proxiedRawTarget(answer: (request: ParsedRequest) => string | Buffer, setup: { readonly path?: string; readonly proxy?: Partial<ProxyOptions> } = {}): { readonly target: RawTarget; readonly proxy: RunningProxy; readonly seen: ForwardedExchange[] } {
  const seen: ForwardedExchange[] = [];
  let target: RawTarget | undefined;
  let proxy: RunningProxy | undefined;
  beforeAll(async () => {
    target = await startRawTarget(answer);
    proxy = await startProxy({ target: `${target.url}${setup.path ?? ''}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex), ...setup.proxy });
  });
  afterAll(async () => { await proxy?.close(0); await target?.close(); });
  return { get target() { return target!; }, get proxy() { return proxy!; }, seen };
}
