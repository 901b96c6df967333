// The heads of the requests the proxy is forwarding are bounded in bytes over all connections, as
// the heads waiting their turn are: past MAX_HEADS_IN_FLIGHT a request is answered 503 and nothing of
// it forwarded, and the reports count it. A thousand connections each forwarding a head of 250 KiB
// (their bodies trickled, or their answers held) took the proxy to 1 GB (heads are now 64 KiB at
// most). Heads still being read: test/proxy-heads-being-read.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADS_IN_FLIGHT } from '../lib/traffic/proxy.js';
import { servingProgram, stopMeasured, WITHOUT_HTML } from './helpers/cli.js';
import { until } from './helpers/wait.js';

const CLIENTS = 700;
const PAD = 'p'.repeat(60 * 1024);
const held: ServerResponse[] = [];
/** Whether the target holds its answers (until every client's request is forwarded or refused). */
let holding = true;

describe('--proxy forwarding 700 requests of a 60 KiB head at once, their answers held', () => {
  let target: Server;
  let targetUrl: string;
  beforeAll(async () => {
    target = createServer({ maxHeaderSize: 512 * 1024 }, (req, res) => {
      req.resume();
      if (holding) held.push(res);
      else res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => { target.closeAllConnections(); await new Promise((r) => target.close(r)); });

  it('forwards heads up to the bound, answers the rest 503 at once, serves an honest client after, peaks under 360 MB, and the reports count the refused', async (ctx) => {
    if (platform() !== 'linux') { ctx.annotate('not Linux: the peak RSS of a child process is read from /proc'); return; }
    const dir = mkdtempSync(join(tmpdir(), 'proxy-heads-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', targetUrl, '--report-dir', dir, '--reports', 'summary', ...WITHOUT_HTML]);
    const sockets: ReturnType<typeof connect>[] = [];
    try {
      const { port } = new URL(await s.url);
      let refused = 0;
      for (let i = 0; i < CLIENTS; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => undefined);
        socket.setEncoding('latin1');
        socket.once('data', (d: string) => { if (d.startsWith('HTTP/1.1 503 ')) refused++; });
        socket.write(`POST /supportstateuser HTTP/1.1\r\nHost: proxy.test\r\nContent-Type: application/json\r\nX-Pad: ${PAD}\r\nContent-Length: 2\r\n\r\n{}`);
      }
      await until(() => held.length + refused === CLIENTS, 'every request forwarded or refused');
      // What was forwarded fits the bound; all the rest was refused.
      expect(held.length * (PAD.length + 100)).toBeLessThanOrEqual(MAX_HEADS_IN_FLIGHT + 2 * 1024 * 1024);
      expect(held.length).toBeGreaterThan(MAX_HEADS_IN_FLIGHT / (PAD.length + 1024) - 2);
      holding = false;
      for (const res of held.splice(0)) res.end();
      const honest = await fetch(`${await s.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await honest.arrayBuffer();
      expect(honest.status).toBe(200);
      for (const socket of sockets) socket.destroy();
      const { code, peakMb } = await stopMeasured(s);
      // Held heads are bounded; the heads refused were still parsed whole (Node reads a head before
      // the proxy sees it), their garbage the rest of the peak: 275-290 MB here (600 heads of 250 KiB: 820 MB unbounded).
      expect(peakMb).toBeLessThan(360);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { warnings: string[]; exitCode: number };
      expect(summary.warnings).toContain(`${refused} request(s) refused with 503, nothing of them forwarded: the heads of the requests being forwarded passed 32 MiB`);
      expect(code).toBe(summary.exitCode);
    } finally {
      for (const socket of sockets) socket.destroy();
      s.child.kill('SIGKILL');
    }
  }, 120_000);
});
