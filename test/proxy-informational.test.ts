// The validating proxy passes on every informational answer (1xx) the target sends before its final
// one, as it came: status, reason phrase and fields (names' case, order, repeats), only the hop-by-hop
// fields left out. Node's writeEarlyHints joined repeated `Link` fields into one and wrote `Link`
// first, dropped a 103 without one and refused one whose Link it could not parse (a 502), and every
// other 1xx (102, 104, …) was dropped. A 100 went by Node's writeContinue (`100 Continue`, the
// target's reason and fields lost), and one no `Expect` asked for was dropped. An HTTP/1.0 client gets
// none (RFC 9110 15.2).
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INFORMATIONAL, startProxy, type RunningProxy } from '../lib/traffic/proxy.js';
import { informationalNote } from '../lib/cli/proxy-run.js';
import { expectingExchange, proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const INFORMATIONAL = [
  'HTTP/1.1 102 Processing\r\nX-Step: one\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nx-hint: a\r\nLink: </a.css>; rel=preload\r\nConnection: X-Hop\r\nX-Hop: gone\r\nLINK: </b.js>; rel=preload\r\nKeep-Alive: timeout=5\r\nlink: </c.png>; rel=preload\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nX-No-Link: 1\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nLink: not a link\r\n\r\n',
  'HTTP/1.1 104 Upload Resumption Required\r\nUpload-Draft-Interop-Version: 6\r\nlocation: /uploads/1\r\n\r\n',
  'HTTP/1.1 199 Whatever It Says\r\n\r\n',
];
/** What the client gets of them: the hop-by-hop fields (Connection, those it names, Keep-Alive) left out. */
const PASSED = INFORMATIONAL.map((head) => head.replace(/Connection: X-Hop\r\nX-Hop: gone\r\n|Keep-Alive: timeout=5\r\n/g, '')).join('');
const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
/** A 1xx with a character HTTP forbids in its reason phrase (DEL), which Node's parser reads. */
const FORBIDDEN = 'HTTP/1.1 102 Pro\x7fcessing\r\n\r\n';

describe('--proxy and the informational answers (1xx) before an answer', () => {
  const setup = proxiedRawTarget((r) => `${r.line.startsWith('GET /forbidden ') ? FORBIDDEN : INFORMATIONAL.join('')}${OK}`);

  it('an HTTP/1.1 client gets each 1xx with its status, reason phrase and fields as sent (less the hop-by-hop ones), then the 200; the exchange is the 200', async () => {
    const before = setup.seen.length;
    const got = await rawExchange(setup.proxy.url, 'GET /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(got.slice(0, got.indexOf('HTTP/1.1 200 OK\r\n'))).toBe(PASSED);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.seen.slice(before).map((ex) => [ex.error, ex.answer?.status])).toEqual([[undefined, 200]]);
  });

  it('an HTTP/1.0 client gets no 1xx, only the 200', async () => {
    const got = await rawExchange(setup.proxy.url, 'GET /supportstateuser HTTP/1.0\r\nHost: x\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
  });

  it('a 1xx holding a character HTTP forbids is not passed on but counted, and the 200 after it is', async () => {
    const before = setup.proxy.informationalDropped();
    const got = await rawExchange(setup.proxy.url, 'GET /forbidden HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.proxy.informationalDropped() - before).toBe(1);
  });
});

/** A 100 with a reason phrase of its own, a field, and hop-by-hop fields; and what the client gets of it. */
const CONTINUE = 'HTTP/1.1 100 Weiter\r\nX-A: 1\r\nConnection: X-B\r\nX-B: hop\r\n\r\n';
const CONTINUE_PASSED = 'HTTP/1.1 100 Weiter\r\nX-A: 1\r\n\r\n';
const PROCESSING = 'HTTP/1.1 102 Processing\r\n\r\n';
const FLOOD = PROCESSING.repeat(MAX_INFORMATIONAL + 1);

describe('--proxy and a 100 (Continue) from the target', () => {
  const setup = proxiedRawTarget(() => `${CONTINUE}${OK}`);

  it.each([
    ['that sent Expect: 100-continue with its body', 'PUT /supportstateuser HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'],
    ['that sent no Expect (a PUT)', 'PUT /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'],
    ['that sent no Expect (a GET)', 'GET /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  ])('an HTTP/1.1 client %s gets the 100 with its reason phrase and fields as sent (less the hop-by-hop ones), then the 200; the exchange is the 200', async (_what, request) => {
    const before = setup.seen.length;
    const got = await rawExchange(setup.proxy.url, request);
    expect(got.slice(0, got.indexOf('HTTP/1.1 200 OK\r\n'))).toBe(CONTINUE_PASSED);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.seen.slice(before).map((ex) => [ex.error, ex.answer?.status])).toEqual([[undefined, 200]]);
  });

  it.each([
    ['with Expect: 100-continue', 'Expect: 100-continue\r\n'],
    ['without Expect', ''],
  ])('an HTTP/1.0 client %s gets no 100, only the 200', async (_what, expectField) => {
    const got = await rawExchange(setup.proxy.url, `PUT /supportstateuser HTTP/1.0\r\nHost: x\r\n${expectField}Content-Length: 2\r\n\r\n{}`);
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
  });
});

describe('--proxy and a client waiting for the target\'s 100 before its body', () => {
  let target: Server;
  let proxy: RunningProxy;
  const bodies: string[] = [];
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    // A target that sends its 100 on a request's head (after MAX_INFORMATIONAL + 1 102s for /flood,
    // one holding DEL for /forbidden), and its 200 once the 2-byte body has come; then the next request.
    target = createServer((socket) => {
      sockets.add(socket);
      let got = '';
      socket.on('data', (d: Buffer) => {
        const had = got.includes('\r\n\r\n');
        got += d.toString('latin1');
        if (!had && got.includes('\r\n\r\n')) socket.write(got.startsWith('PUT /flood ') ? `${FLOOD}${CONTINUE}` : got.startsWith('PUT /forbidden ') ? 'HTTP/1.1 100 Wei\x7fter\r\n\r\n' : CONTINUE);
        const body = got.slice(got.indexOf('\r\n\r\n') + 4);
        if (body.length === 2) { bodies.push(body); socket.write(OK); got = ''; }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined });
  });
  afterAll(async () => { await proxy.close(0); for (const s of sockets) s.destroy(); await new Promise((r) => target.close(r)); });

  it('gets the target\'s 100 as sent, sends its body, and the 200 keeps its connection open', async () => {
    const got = await expectingExchange(proxy.url, 'PUT /supportstateuser HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n', '{}');
    expect(got.slice(0, got.indexOf('HTTP/1.1 200 OK\r\n'))).toBe(CONTINUE_PASSED);
    expect([/\r\nConnection: keep-alive\r\n/i.test(got), bodies.at(-1)]).toEqual([true, '{}']);
  });

  it(`gets the 100 it waits for after ${MAX_INFORMATIONAL} other 1xx, past which those are dropped and counted`, async () => {
    const [before, replacedBefore] = [proxy.informationalDropped(), proxy.informationalReplaced()];
    const got = await expectingExchange(proxy.url, 'PUT /flood HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n', '{}');
    expect(got.slice(0, got.indexOf('HTTP/1.1 200 OK\r\n'))).toBe(`${PROCESSING.repeat(MAX_INFORMATIONAL)}${CONTINUE_PASSED}`);
    expect([proxy.informationalDropped() - before, proxy.informationalReplaced() - replacedBefore]).toEqual([1, 0]);
  });

  it('a 100 holding a character HTTP forbids reaches it as `100 Continue`, counted as dropped and as replaced, and its body reaches the target', async () => {
    const [before, replacedBefore] = [proxy.informationalDropped(), proxy.informationalReplaced()];
    const got = await expectingExchange(proxy.url, 'PUT /forbidden HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n', '{}');
    expect([got.slice(0, got.indexOf('HTTP/1.1 200 OK\r\n')), bodies.at(-1), proxy.informationalDropped() - before, proxy.informationalReplaced() - replacedBefore]).toEqual(['HTTP/1.1 100 Continue\r\n\r\n', '{}', 1, 1]);
  });

  it('the stop note says how many 1xx were not passed on and, when some were, how many awaited 100s went as a plain `100 Continue`', () => {
    expect(informationalNote(0, 0)).toBeUndefined();
    expect(informationalNote(3, 0)).toBe(`3 informational answer(s) (1xx) from the target were not passed on: past ${MAX_INFORMATIONAL} before one answer, while its client had not taken those before, or holding a character HTTP forbids`);
    expect(informationalNote(3, 1)).toBe(`3 informational answer(s) (1xx) from the target were not passed on: past ${MAX_INFORMATIONAL} before one answer, while its client had not taken those before, or holding a character HTTP forbids; 1 of them a 100 its client was waiting for, which went to it as a plain \`100 Continue\` in its place`);
  });
});
