// What send() records of an answer, through the per-request handler that keeps undici's header object
// and a one-chunk body as they came: header names lower-case, repeats joined with ", ", a header named
// __proto__ left out (as a name-value list gives it), the body whole however it was cut; and the
// record's digest, taken lazily by a getter shared by every record yet own and enumerable.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedResponse } from '../lib/http/exchange.js';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';

const options = { timeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024 };
const chunks = ['{"a":', '"', 'x'.repeat(70_000), '"}'];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/repeated' || req.url === '/proto') {
      const proto = req.url === '/proto' ? ['__proto__', 'p', '__proto__', 'q'] : [];
      res.writeHead(200, ['X-Dup', '1', 'x-dup', '2', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', ...proto, 'Content-Type', 'text/plain']);
      res.end('ok');
      return;
    }
    // A body written in pieces, the longest past one read of the socket.
    res.writeHead(200, { 'content-type': 'application/json' });
    let i = 0;
    const next = () => { if (i < chunks.length) res.write(chunks[i++], () => setTimeout(next, 5)); else res.end(); };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => { await new Promise((r) => server.close(r)); });

const sendTo = async (path: string) => {
  const dispatcher = createDispatcher(options);
  try {
    return await send({ id: 'x', title: 'x', origin: { source: 'probe', vouched: true }, method: 'GET', path, headers: {} }, base, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
  } finally {
    await dispatcher.close();
  }
};

describe('send records the answer', () => {
  it.each(['/repeated', '/proto'])('%s: with repeated headers joined in the order received, and none named __proto__', async (path) => {
    const ex = await sendTo(path);
    const h = ex.response!.headers;
    expect(h['x-dup']).toBe('1, 2');
    expect(h['set-cookie']).toBe('a=1, b=2');
    expect(h['content-type']).toBe('text/plain');
    expect(Object.hasOwn(h, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(h)).toBe(Object.prototype);
    expect(Object.keys(h).slice(0, 3)).toEqual(['x-dup', 'set-cookie', 'content-type']);
    expect(ex.response!.body.toString()).toBe('ok');
  });

  it('with a body sent in pieces whole, its size and digest those of every byte', async () => {
    const ex = await sendTo('/pieces');
    const whole = Buffer.from(chunks.join(''));
    expect(ex.response!.body.equals(whole)).toBe(true);
    expect(ex.response!.size).toBe(whole.length);
    expect(ex.response!.sha256).toBe(createHash('sha256').update(whole).digest('hex'));
  });
});

describe('recordedResponse', () => {
  it('takes the digest of its own bytes when read, as an own enumerable member that copies and JSON carry', () => {
    const a = recordedResponse(200, {}, Buffer.from('first'));
    const b = recordedResponse(200, {}, Buffer.from('second'));
    const descriptor = Object.getOwnPropertyDescriptor(a, 'sha256');
    expect(descriptor?.get).toBeTypeOf('function');
    expect(descriptor?.enumerable).toBe(true);
    expect(Object.keys(a)).toEqual(['status', 'headers', 'body', 'size', 'sha256']);
    const digest = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(b.sha256).toBe(digest('second'));
    expect(a.sha256).toBe(digest('first'));
    const copy = { ...a, body: Buffer.from('fi') };
    expect(Object.getOwnPropertyDescriptor(copy, 'sha256')?.value).toBe(digest('first'));
    expect(JSON.parse(JSON.stringify({ ...b, body: undefined })).sha256).toBe(digest('second'));
  });
});
