// A hostile target for tests: every request gets the same misbehaviour, one mode per server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startReference, type RunningReference } from '../../lib/reference/server.js';

export type HostileMode =
  | 'silent' | 'stall-body' | 'drip' | 'reset' | 'redirect-loop' | 'huge'
  | 'invalid-utf8' | 'truncated-json' | 'malformed-xml' | 'doctype' | 'billion-laughs' | 'external-entity'
  | 'html-error' | 'wrong-media-type' | 'unavailable' | 'retry-after'
  // Floods: bodies under the 10 MiB cap that flood one dimension of their shape.
  | 'xml-elements' | 'xml-deep' | 'xml-attributes' | 'xml-cdata' | 'xml-texts' | 'json-members' | 'json-number' | 'json-deep' | 'json-literals' | 'gzip';

const LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('')}]><lolz>&lol9;</lolz>`;

const fixed: Partial<Record<HostileMode, [number, Record<string, string>, string | Buffer]>> = {
  'invalid-utf8': [200, { 'content-type': 'application/json' }, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  'truncated-json': [200, { 'content-type': 'application/json' }, '{"userName":"x","userId":10'],
  'malformed-xml': [200, { 'content-type': 'application/xml' }, '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><UserDetailsResponse>'],
  doctype: [200, { 'content-type': 'application/xml' }, '<!DOCTYPE Envelope [<!ELEMENT Envelope ANY>]><Envelope/>'],
  'billion-laughs': [200, { 'content-type': 'application/xml' }, LAUGHS],
  'external-entity': [200, { 'content-type': 'application/xml' }, '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>'],
  'html-error': [500, { 'content-type': 'text/html' }, '<!DOCTYPE html><html><body><h1>500 Internal Server Error</h1></body></html>'],
  unavailable: [503, { 'content-type': 'text/plain' }, 'Service Unavailable'],
};

const ENVELOPE = (inner: string) =>
  `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><UserDetailsResponse xmlns="http://schemas.datacontract.org/2004/07/SupportState.ServiceModel.Login">${inner}</UserDetailsResponse></s:Body></s:Envelope>`;

/** Built once, on first use: each is several megabytes. */
const FLOODS: Partial<Record<HostileMode, () => [string, Buffer]>> = {
  // 2.3 million empty elements, 9.2 MB.
  'xml-elements': () => ['application/xml', Buffer.from(ENVELOPE('<a/>'.repeat(2_300_000)))],
  // 100 000 levels, 0.7 MB.
  'xml-deep': () => ['application/xml', Buffer.from(ENVELOPE(`${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`))],
  // One element with a million attributes.
  'xml-attributes': () => ['application/xml', Buffer.from(ENVELOPE(`<a ${Array.from({ length: 1_000_000 }, (_, i) => `b${i.toString(36)}=""`).join(' ')}/>`))],
  // 800 000 CDATA sections in one element, 10.4 MB: text nodes are children too.
  'xml-cdata': () => ['application/xml', Buffer.from(ENVELOPE(`<a>${'<![CDATA[x]]>'.repeat(800_000)}</a>`))],
  // 120 elements of 9 999 CDATA sections each: no element has too many children, the body too many values.
  'xml-texts': () => ['application/xml', Buffer.from(ENVELOPE(`<a>${'<![CDATA[x]]>'.repeat(9_999)}</a>`.repeat(60)))],
  // 1.8 million nulls in 180 arrays of 9 999: literals are values too.
  'json-literals': () => ['application/json', Buffer.from(`{"roles":[${Array.from({ length: 180 }, () => `[${Array.from({ length: 9_999 }, () => 'null').join(',')}]`).join(',')}]}`)],
  // A million tiny members in about 10 MiB.
  'json-members': () => ['application/json', Buffer.from(`{${Array.from({ length: 1_000_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`)],
  // One number of a million digits.
  'json-number': () => ['application/json', Buffer.from(`{"userId":${'7'.repeat(1_000_000)}}`)],
  // 1.4 million levels of arrays.
  'json-deep': () => ['application/json', Buffer.from(`{"roles":${'['.repeat(1_400_000)}${']'.repeat(1_400_000)}}`)],
  // A gzip body the harness never asked for (it sends no Accept-Encoding).
  gzip: () => ['application/json', gzipSync('{"userName":"x"}')],
};
const floods = new Map<HostileMode, [string, Buffer]>();

export interface Hostile {
  readonly url: string;
  /** Requests received so far. */
  readonly requests: () => number;
  close(): Promise<void>;
}

export async function startHostile(mode: HostileMode): Promise<Hostile> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let count = 0;
  let reference: RunningReference | undefined;
  const seen = new Set<string>();
  if (mode === 'retry-after' || mode === 'wrong-media-type') reference = await startReference();

  const forward = async (req: IncomingMessage, res: ServerResponse, body: Buffer, edit: (h: Record<string, string>) => Record<string, string> = (h) => h) => {
    const { host: _h, connection: _c, 'content-length': _l, 'transfer-encoding': _t, ...headers } = req.headers as Record<string, string>;
    const r = await fetch(reference!.url + req.url, { method: req.method, headers, body: ['GET', 'HEAD', 'OPTIONS'].includes(req.method!) ? undefined : body });
    // fetch decodes a compressed answer: what is relayed is the decoded body, so not its coding or length.
    const { 'content-encoding': _e, 'content-length': _n, ...answer } = Object.fromEntries(r.headers);
    res.writeHead(r.status, edit(answer));
    res.end(Buffer.from(await r.arrayBuffer()));
  };

  const server = createServer((req, res) => {
    count++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const canned = fixed[mode];
      if (canned) { res.writeHead(canned[0], canned[1]); res.end(canned[2]); return; }
      const flood = FLOODS[mode];
      if (flood) {
        if (!floods.has(mode)) floods.set(mode, flood());
        const [type, body] = floods.get(mode)!;
        res.writeHead(200, { 'content-type': type, ...(mode === 'gzip' ? { 'content-encoding': 'gzip' } : {}) });
        res.end(body);
        return;
      }
      switch (mode) {
        case 'silent': return; // read the request, never answer
        case 'stall-body': res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"userName":'); return;
        case 'drip': {
          res.writeHead(200, { 'content-type': 'application/json' });
          // A space every 100 ms: never idle for long, never complete, so the whole-body limit decides
          // and not undici's stall limit (the same 1.5 s). At 1 s apart, a timer late by half a
          // second on a loaded machine made a stall instead (hostile.test.ts failed so, under load).
          const t = setInterval(() => res.write(' '), 100);
          timers.add(t);
          res.on('close', () => clearInterval(t));
          return;
        }
        case 'reset': res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' }); res.write('{"userName":"x",'); setTimeout(() => req.socket.destroy(), 20); return;
        case 'redirect-loop': res.writeHead(302, { location: req.url ?? '/' }); res.end(); return;
        case 'huge': {
          // Gigabytes on offer, as fast as the harness reads them.
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(256 * 1024, 0x20);
          let sent = 0;
          const pump = () => { while (sent < 4 * 1024 ** 3 && res.write(chunk)) sent += chunk.length; };
          res.on('drain', pump);
          pump();
          return;
        }
        case 'wrong-media-type': void forward(req, res, Buffer.concat(chunks), (h) => ({ ...h, 'content-type': 'text/html' })); return;
        case 'retry-after': {
          const key = `${req.method} ${req.url} ${req.headers.accept ?? ''} ${req.headers['accept-encoding'] ?? ''}`;
          if (!seen.has(key)) { seen.add(key); res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }); res.end('slow down'); return; }
          void forward(req, res, Buffer.concat(chunks));
          return;
        }
        default: res.writeHead(500); res.end();
      }
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => count,
    close: async () => {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await reference?.close();
    },
  };
}
