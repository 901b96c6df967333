// A run that sends (the probes, accounts) stopped by SIGTERM or SIGINT (a CI job cancelled or timed
// out) ends as the other exits 2 do: nothing more is sent, the requests in flight finish, the reports
// are written saying INCOMPLETE, and the exit code is 2. Killed by the signal instead, it wrote no
// report (a report directory kept an earlier run's, with that run's verdict) and exited 143 or 130.
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { childEnv, ROOT } from './helpers/cli.js';
import { expectOneVerdict } from './helpers/verdict-words.js';

/** The answers: a plain reference, behind a front that counts the requests and can hold one. */
let plain: RunningReference;
beforeAll(async () => { plain = await startReference({}); });
afterAll(async () => { await plain.close(); });

/** Forwards every request to the plain reference as it came; `hold(n)` says whether to keep the n-th
 *  (from 1) waiting until `release` is called. */
async function front(hold: (n: number) => Promise<void> | undefined): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = createServer((req, res) => {
    const waiting = hold(++n) ?? Promise.resolve();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void waiting.then(() => {
        const out = request(`${plain.url}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on('error', () => res.destroy()); // the run gone (killed) before its answer
        out.end(Buffer.concat(chunks));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received: () => n, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

describe('a sending run stopped by a signal', { timeout: 120_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} while an account is asked: nothing more sent, INCOMPLETE in every output, exit 2`, async () => {
      // The first account's request (the 21st: the 20 probes come first, one at a time) is held
      // until the run says it is stopping.
      let release: () => void;
      const released = new Promise<void>((resolve) => { release = resolve; });
      let holding: () => void;
      const heldNow = new Promise<void>((resolve) => { holding = resolve; });
      const target = await front((n) => { if (n !== 21) return undefined; holding(); return released; });
      try {
        const dir = mkdtempSync(join(tmpdir(), 'batch-stop-'));
        const accounts = join(dir, 'accounts.jsonl');
        writeFileSync(accounts, Array.from({ length: 50 }, (_, i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n'));
        const child = spawn(process.execPath, ['bin/run.mjs', 'cli/main', '--base-url', target.url, '--accounts', accounts, '--concurrency', '1',
          '--report-dir', dir, '--reports', 'summary,traceability,junit'], { cwd: ROOT, env: childEnv() });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
        const stopping = new Promise<void>((resolve) => child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); if (stderr.includes('stopping')) resolve(); }));
        const exit = new Promise<number>((resolve) => child.on('exit', (code, sig) => resolve(code ?? (sig === 'SIGTERM' ? 143 : 130))));
        await heldNow;
        child.kill(signal);
        await Promise.race([stopping, exit]); // killed by the signal, it never says it is stopping
        release!();
        const code = await exit;
        expect(stderr).toBe(`conformance: stopping (${signal}): nothing more is sent; the reports follow the requests in flight\n`
          + `conformance: run incomplete: stopped (${signal}) before every request was sent\n`);
        expectOneVerdict(dir, stdout, code, 'INCOMPLETE', false);
        // The 20 probes and the held account: nothing was sent after the signal.
        expect(target.received()).toBe(21);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { stopped?: string; warnings: string[] };
        expect(summary.stopped).toBe(signal);
        expect(summary.warnings).toContain(`stopped (${signal}) before every request was sent: the run is incomplete`);
      } finally {
        await target.close();
      }
    });
  }
});
