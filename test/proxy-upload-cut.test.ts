// A target that stops reading an upload and closes its connection (as one refusing a body past its
// limit does, after an early 413 the reset then loses: RFC 9112 9.6) leaves the proxy with a write
// error, no answer. That is no answer the target gave: the exchange is counted as not judged, its
// client answered 502 saying why. It had been judged "no response" against the target, so any client
// uploading past a conforming deployment's limit made the run NOT CONFORMANT. A target that closes
// with no answer once it has the whole request is still judged for it. A body whose chunked framing
// breaks gets a one-line 400 and is counted as such (it had no answer, and was blamed on its client).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JudgeQueue } from '../lib/cli/proxy-run.js';
import { startProxy, type ForwardedExchange, type Unjudged } from '../lib/traffic/proxy.js';
import { rawExchange } from './helpers/raw-target.js';
import { until } from './helpers/wait.js';

const MIB = 1024 * 1024;
let target: Server;
let targetUrl = '';
beforeAll(async () => {
  // /cut: closes the connection at the request's head, its body unread; /after: once the body is whole.
  target = createServer((req, res) => {
    if (req.url === '/cut') { req.socket.destroy(); return; }
    req.resume();
    req.on('end', () => res.socket?.destroy());
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => { target.closeAllConnections(); await new Promise((r) => target.close(r)); });

/** A proxy to the target judging what it is given: the exchanges judged and those counted as not. */
async function proxied() {
  const queue = new JudgeQueue(1000, 64 * MIB, () => queueMicrotask(() => queue.judged()));
  const seen: ForwardedExchange[] = [];
  const unjudged: Unjudged[] = [];
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: 32 * MIB, timeoutMs: 30_000, room: queue, onExchange: (ex) => { seen.push(ex); queue.offer(ex); }, onUnjudged: (why) => { unjudged.push(why); } });
  return { proxy, seen, unjudged };
}

it('an upload the target cut is not judged, its client told 502 why; a whole request left unanswered is judged as no answer', async () => {
  const { proxy, seen, unjudged } = await proxied();
  try {
    const cut = await fetch(`${proxy.url}/cut`, { method: 'POST', body: Buffer.alloc(20 * MIB, 0x61) }).then(async (r) => [r.status, await r.text()], (e: Error) => [0, e.message]);
    await until(() => seen.length + unjudged.length === 1, 'the cut upload to be counted');
    expect({ unjudged, judged: seen.length }).toEqual({ unjudged: ['upload-cut'], judged: 0 });
    // The client may see the 502, or its own upload cut first: never another answer.
    if (cut[0] !== 0) expect(cut).toEqual([502, expect.stringMatching(/closed the connection while the request's body was being sent to it \((EPIPE|ECONNRESET)\)/)]);
    const after = await fetch(`${proxy.url}/after`, { method: 'POST', body: 'x' });
    expect(after.status).toBe(502);
    await until(() => seen.length === 1, 'the unanswered request to be judged');
    expect(seen[0]!.error?.message).toMatch(/closed with no answer|reset|socket hang up/);
  } finally {
    await proxy.close(0);
  }
});

it('a request whose chunked body breaks is answered 400 in one line, counted as not judged for that reason; a malformed head gets its one-line 400 too', async () => {
  const { proxy, seen, unjudged } = await proxied();
  try {
    // Chunk lines ended by LF alone: Node's parser refuses the body after the head was forwarded.
    const got = await rawExchange(proxy.url, 'POST /after HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1b\n{"userName":"jdoe.support"}\n0\n\n');
    expect(got).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*conformance proxy: the request's body could not be read \(its chunked framing is broken\); what came of it was forwarded, then cut\n/);
    await until(() => unjudged.length === 1, 'the exchange to be counted');
    expect({ unjudged, judged: seen.length }).toEqual({ unjudged: ['bad-body'], judged: 0 });
    expect(await rawExchange(proxy.url, 'POST /x HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nconformance proxy: the request is not HTTP\/1\.1 the proxy can read\n$/);
  } finally {
    await proxy.close(0);
  }
});
