// Under saturating traffic the proxy's idle-priority judge rests between slices of work
// (lib/traffic/judging-pace.ts): on a 2-vCPU machine a judge using all the spare CPU cut the
// traffic's rate by a tenth of a bare forwarder's. The reports say it rested, and whatever was
// handed to the judge is judged by the stop: judged and unjudged add up to what was forwarded.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servingProgram } from './helpers/cli.js';

/** Where a thread's busy clock is read (lib/traffic/thread-busy.ts): Linux with schedstats. */
const clock = existsSync('/proc/thread-self/schedstat');
const REQUESTS = 6000;

describe('--proxy under saturating traffic, its judge at the idle policy', () => {
  let target: Server;
  let targetUrl: string;
  beforeAll(async () => {
    const body = Buffer.from('{"userName":"jdoe.support"}');
    target = createServer((req, res) => {
      req.resume();
      req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }); res.end(body); });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((r) => target.close(r)); });

  it.skipIf(!clock)(clock
    ? 'rests while the forwarding thread is busy half the time or more, says so in its reports, and has judged every exchange handed to it by the stop'
    : 'SKIPPED: no thread busy clock here (not Linux, or no schedstats): the judge keeps its idle policy alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-pace-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', targetUrl, '--report-dir', dir, '--reports', 'summary']);
    try {
      const url = await s.url;
      // As many connections as a load generator keeps: the forwarding thread is then never idle.
      const load = await autocannon({
        url: `${url}/supportstateuser`, method: 'POST', connections: 32, amount: REQUESTS, timeout: 60,
        headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}',
      });
      expect({ errors: load.errors, non2xx: load.non2xx, total: load.requests.total }).toEqual({ errors: 0, non2xx: 0, total: REQUESTS });
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1); // the answers lack the record's members: a MUST fails
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { warnings: string[]; counts: { exchanges: { exchanges: number; unjudged?: number } } };
      expect(summary.warnings).toContainEqual(expect.stringMatching(/^while the traffic was heavy \(the proxy's forwarding thread busy 50% of the time or more\), the judge worked at most 3% of the time, so as not to slow it: it rested [1-9]\d* time\(s\), [\d.]+ s in all;/));
      const { exchanges, unjudged = 0 } = summary.counts.exchanges;
      expect(exchanges + unjudged).toBe(REQUESTS);
      expect(exchanges).toBeGreaterThan(0);
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 120_000);
});
