// replay.sh after --proxy: an answer the target compressed reached the client as gzip bytes, and a
// replay of its request (which offers gzip again) gets those bytes again. The exchange is judged
// decoded, but its responseSha256 must be the SHA-256 of the bytes received, as a probe's is: hashing
// the decoded body made every replay of a compressed answer say it differed from the run.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';
import { servingProgram } from './helpers/cli.js';

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

let ref: RunningReference;
beforeAll(async () => { ref = await startReference({ variants: [...STYLES.filter((s) => s.name === 'gzip'), ...FAULTS.filter((f) => f.name === 'callback-renamed')] }); });
afterAll(() => ref.close());

it('a failed check on a gzip answer through the proxy is replayed by replay.sh with the run\'s status and body SHA-256 (as in the run)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-proxy-gzip-'));
  const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', ref.url, '--report-dir', dir, '--reports', 'summary']);
  try {
    const url = await s.url;
    const got = await fetch(`${url}/supportstateuser?callback=cb`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' }, body: '{}' });
    expect([got.status, got.headers.get('content-encoding')]).toEqual([200, 'gzip']);
    await got.arrayBuffer();
    s.child.kill('SIGTERM');
    expect(await s.exit).toBe(1);
  } finally {
    s.child.kill('SIGKILL');
  }
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { checks: { id: string; level: string; status: string; evidence: { exchange: string }[] }[]; exchanges: { id: string; status: number; responseSha256: string }[] };
  const failed = summary.checks.filter((c) => c.status === 'failed');
  expect(failed.map((c) => c.id)).toEqual(['JSONP-CALLBACK']);
  const ex = summary.exchanges.find((e) => e.id === failed[0]!.evidence[0]!.exchange)!;
  const out = await sh(join(dir, 'replay.sh'));
  expect([out.code, out.stderr, out.stdout]).toEqual([0, '', `JSONP-CALLBACK (MUST) ${ex.id}: 200 sha256 ${ex.responseSha256} (as in the run)\n`]);
}, 60_000);
