// The validating proxy's reports say how much traffic went unjudged while it runs, not only once it
// stops: each report rewritten during the traffic states "so far, N of M exchange(s) forwarded were
// not judged", and the last one the final count in its place. The verdict itself says it is of part of
// the traffic ("…, 3 OF 5 EXCHANGES NOT JUDGED") in every output that states it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram, servingProgram } from './helpers/cli.js';
import { expectOneVerdict } from './helpers/verdict-words.js';
import { until } from './helpers/wait.js';

const MIB = 1024 * 1024;
const CLIENTS = 5;
const BODY = Buffer.from(JSON.stringify({ releaseMessage: 'r'.repeat(Math.floor(0.9 * MIB)) }));
/** The answers whose head and first byte the target has sent, waiting for the rest. */
const waiting: ServerResponse[] = [];

describe('--proxy with more answers in flight than its room for copies', () => {
  let target: Server;
  let targetUrl: string;
  beforeAll(async () => {
    // Sends each answer's head and first byte, and the rest only once every client has its head (the
    // test ends them): with --max-body-mib 1 the room (two bodies at the cap) holds two copies of
    // 0.9 MiB, not five. The proxy takes an answer's room from its Content-Length before it passes
    // the head on, so all five are weighed before any body is whole and judged (whose room, given
    // back, would let a later one in: under load, 2 of 5 went unjudged, not 3).
    target = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(BODY.length) });
        res.write(BODY.subarray(0, 1));
        waiting.push(res);
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((r) => target.close(r)); });

  it('the reports rewritten while it runs state how many exchanges went unjudged so far, in the warnings, counts and verdict; the last one states the final count instead, and the console\'s verdict too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-unjudged-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', targetUrl, '--report-dir', dir, '--reports', 'summary', '--max-body-mib', '1', '--judge-priority', 'normal']);
    type Summary = { warnings: string[]; verdictWords: string; counts: { exchanges: { exchanges: number; unjudged?: number } } };
    const summary = (): Summary | undefined => {
      try { return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary; } catch { return undefined; }
    };
    const warnings = () => summary()?.warnings ?? [];
    try {
      const url = await s.url;
      const answers = await Promise.all(Array.from({ length: CLIENTS }, () =>
        fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userName":"jdoe.support"}' })));
      expect(waiting).toHaveLength(CLIENTS);
      for (const r of waiting.splice(0)) r.end(BODY.subarray(1));
      const statuses = await Promise.all(answers.map(async (r) => { await r.arrayBuffer(); return r.status; }));
      expect(statuses).toEqual(Array(CLIENTS).fill(200));
      // Still running: a rewrite of the reports (every 10 s) carries the count so far.
      const soFar = /^so far, (\d+) of 5 exchange\(s\) forwarded were not judged \((\d+)% judged\)/;
      await until(() => warnings().some((w) => soFar.test(w)), 'a report written during the traffic to state what went unjudged', 60_000);
      const live = warnings().filter((w) => soFar.test(w));
      expect(live).toHaveLength(1);
      expect(Number(soFar.exec(live[0]!)![1])).toBe(3); // two copies fit the room, three did not
      expect(summary()).toMatchObject({ verdictWords: 'NOT CONFORMANT, IN PROGRESS, 2 EXCHANGES JUDGED SO FAR, 3 OF 5 EXCHANGES NOT JUDGED', counts: { exchanges: { exchanges: 2, unjudged: 3 } } });
      s.child.kill('SIGTERM');
      expect(await s.exit).toBe(1); // the answers judged lack the record's members: a MUST fails
      const last = warnings().filter((w) => / forwarded were not judged /.test(w));
      expect(last).toEqual([expect.stringMatching(/^3 of 5 exchange\(s\) forwarded were not judged \(40% judged\): past the bound of 2 MiB copied for judging/)]);
      expect(summary()).toMatchObject({ verdictWords: 'NOT CONFORMANT, 3 OF 5 EXCHANGES NOT JUDGED', counts: { exchanges: { exchanges: 2, unjudged: 3 } } });
      // Rebuilt from summary.json, JUnit and traceability.md state it too, as the console did.
      expect((await runProgram('cli/report', ['--report-dir', dir, '--reports', 'summary,junit,traceability'])).code).toBe(1); // exits as the run did
      expectOneVerdict(dir, s.output(), 1, 'NOT CONFORMANT, 3 OF 5 EXCHANGES NOT JUDGED', false);
    } finally {
      s.child.kill('SIGKILL');
    }
  }, 120_000);
});
