// A target that answers before a request's body is whole (an early 413, or at once) and reads on, and
// a client that reads the answer and hangs up mid-body: the proxy closes its connection to the target
// too. It kept it for good (the exchange done, nothing listening for its client's end): a descriptor
// and a target connection per such client, 200 of them still open 75 s on.
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
const CLIENTS = 5;

describe('--proxy, an answer before the body is whole, its client gone mid-body', () => {
  let target: Server;
  let proxy: RunningProxy;
  const open = new Set<Socket>();
  let accepted = 0;
  const judged: string[] = [];
  beforeAll(async () => {
    // Answers each connection's request at its head, and reads on.
    target = createServer((s) => {
      accepted++;
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
      let head = '';
      s.on('data', (d: Buffer) => { if (head !== 'done') { head += d.toString('latin1'); if (head.includes('\r\n\r\n')) { head = 'done'; s.write(OK); } } });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    proxy = await startProxy({ target: `http://127.0.0.1:${(target.address() as { port: number }).port}`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: (ex) => judged.push(ex.url) });
  });
  afterAll(async () => {
    await proxy.close(0);
    for (const s of open) s.destroy();
    await new Promise((r) => target.close(r));
  });

  it(`closes its connection to the target once each of ${CLIENTS} clients has gone, each exchange judged`, async () => {
    for (let i = 0; i < CLIENTS; i++) {
      const client = new Socket();
      client.on('error', () => undefined);
      let got = '';
      const answered = new Promise<void>((r) => client.on('data', (d: Buffer) => { got += d.toString('latin1'); if (got.endsWith('{}')) r(); }));
      client.connect(proxy.port, '127.0.0.1', () => client.write(`POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"userName":`));
      await answered;
      expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      client.destroy();
    }
    await until(() => judged.length === CLIENTS, 'every exchange judged');
    expect(accepted).toBe(CLIENTS);
    await until(() => open.size === 0, 'the proxy to close its connections to the target');
    expect(proxy.inFlight()).toBe(0);
  });
});
