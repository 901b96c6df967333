// A request asking to upgrade its connection (Connection: upgrade and an Upgrade field) still comes
// to a server that does not listen for 'upgrade' as an ordinary request, but Node's parser reads
// nothing past its head in the read it came in: its body, and the requests pipelined behind it, are
// thrown away unseen, and the connection goes on with the next read. An independent review showed
// the validating proxy and the judging reference each lose a request so, never answered, judged or
// counted, every later answer on the connection shifted by one; and a POST head dropped so made its
// body, itself a request, be forwarded as one (smuggled past anything in front of the proxy). Now
// such a request without a body is answered as any other, its connection closed after its answer
// and nothing behind it forwarded or answered; one that declares a body is refused in one line.
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { proxiedRawTarget } from './helpers/raw-target.js';

/** Writes `first` in one write and `later` 300 ms after, and reads until the peer closes the
 *  connection (10 s at most): what came back, and whether the peer closed it. */
function exchange(url: string, first: string, later: string): Promise<{ got: string; closed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let got = '';
    const socket = new Socket();
    const finish = (closed: boolean) => { clearTimeout(timer); socket.destroy(); resolve({ got, closed }); };
    const timer = setTimeout(() => finish(false), 10_000);
    socket.connect(Number(port), hostname, () => {
      socket.write(first);
      setTimeout(() => { if (!socket.destroyed) socket.write(later, () => undefined); }, 300);
    });
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
  });
}
const statusLines = (text: string): string[] => [...text.matchAll(/^HTTP\/1\.1 \d{3}[^\r]*/gm)].map((m) => m[0]);
const UPGRADE = 'Connection: Upgrade\r\nUpgrade: foo\r\n';

describe('the validating proxy, a request asking to upgrade', () => {
  const setup = proxiedRawTarget((q) => `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${q.line.length}\r\n\r\n${q.line}`);

  it('without a body: forwarded and answered, its connection closed after, nothing pipelined behind it forwarded', async () => {
    const { target, proxy } = setup;
    const before = target.requests.length;
    const r = await exchange(proxy.url, `GET /first HTTP/1.1\r\nHost: x\r\n${UPGRADE}\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n`, 'GET /third HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(target.requests.slice(before).map((q) => q.line)).toEqual(['GET /first HTTP/1.1']);
    expect([statusLines(r.got), r.got.endsWith('GET /first HTTP/1.1'), r.closed]).toEqual([['HTTP/1.1 200 OK'], true, true]);
    expect(r.got).toMatch(/\r\nconnection: close\r\n/i);
  });

  it('a POST head dropped behind one: its body, itself a request, is not forwarded as one', async () => {
    const { target, proxy } = setup;
    const before = target.requests.length;
    const r = await exchange(proxy.url, `GET /a HTTP/1.1\r\nHost: x\r\n${UPGRADE}\r\nPOST /allowed HTTP/1.1\r\nHost: x\r\nContent-Length: 35\r\n\r\n`, 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(target.requests.slice(before).map((q) => q.line)).toEqual(['GET /a HTTP/1.1']);
    expect([statusLines(r.got), r.closed]).toEqual([['HTTP/1.1 200 OK'], true]);
  });

  it('with a body: refused in one line, nothing forwarded', async () => {
    const { target, proxy } = setup;
    const before = target.requests.length;
    const refused = proxy.refused();
    const r = await exchange(proxy.url, `POST /x HTTP/1.1\r\nHost: x\r\n${UPGRADE}Content-Length: 2\r\n\r\n{}GET /second HTTP/1.1\r\nHost: x\r\n\r\n`, '');
    expect(target.requests.slice(before)).toEqual([]);
    expect([statusLines(r.got), r.closed, proxy.refused() - refused]).toEqual([['HTTP/1.1 400 Bad Request'], true, 1]);
    expect(r.got).toContain('asking to upgrade its connection (Connection: upgrade) with a body is not forwarded');
  });
});

describe('the judging reference, a request asking to upgrade', () => {
  let reference: RunningReference;
  const judged: string[] = [];
  beforeAll(async () => { reference = await startReference({ observer: { answered: (q) => { judged.push(`${q.method} ${q.url}`); } } }); });
  afterAll(async () => { await reference.close(); });

  it('without a body: answered, its connection closed after, nothing pipelined behind it answered or judged', async () => {
    judged.length = 0;
    const r = await exchange(reference.url, `OPTIONS /supportstateuser HTTP/1.1\r\nHost: x\r\n${UPGRADE}\r\nOPTIONS /user/confirmemail HTTP/1.1\r\nHost: x\r\n\r\n`, 'OPTIONS /soap11 HTTP/1.1\r\nHost: x\r\n\r\n');
    expect([statusLines(r.got).length, r.closed]).toEqual([1, true]);
    expect(r.got).toMatch(/\r\nconnection: close\r\n/i);
    expect(judged).toEqual(['OPTIONS /supportstateuser']);
  });

  it('with a body: refused in one line, neither judged nor answered behind it', async () => {
    judged.length = 0;
    const body = '{"userName":"u","searchValues":"s"}';
    const r = await exchange(reference.url, `POST /supportstateuser HTTP/1.1\r\nHost: x\r\n${UPGRADE}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, `POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect([statusLines(r.got), r.closed, judged]).toEqual([['HTTP/1.1 400 Bad Request'], true, []]);
    expect(r.got).toContain('asking to upgrade its connection (Connection: upgrade) with a body');
  });
});
