// replay.sh of a HEAD request (a client's, a recording's): `curl -X HEAD` waited for the body the
// answer's Content-Length announced, which never comes, until its --max-time, so the failure
// replayed as "no answer"; and the judging reference recorded the body it would have written, which
// Node sends no HEAD, so the run's SHA-256 was of bytes no client got. The curl says --head, and
// replay.sh hashes no body for it, as the run recorded none.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { sendRaw } from './helpers/client-requests.js';

// Past the limit a HEAD curl would be cut at, so a script that waits for a body says "no answer" soon.
const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '', REPLAY_MAX_TIME: '5' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

it('replay.sh re-sends a client\'s HEAD with curl --head and gets the run\'s status and empty body again (as in the run)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-head-'));
  const judging = await startJudgingReference({ reportDir: dir, print: () => undefined, reports: new Set(['summary']) });
  try {
    expect((await sendRaw(judging.url, { method: 'HEAD', path: '/user/confirmemail', headers: {}, body: '' })).status).toBe(405);
    const report = (await judging.report()).report;
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.id)).toEqual(['REQ-METHOD']);
    const ex = report.exchanges.find((e) => e.id === failed[0]!.evidence[0]!.exchange)!;
    expect([ex.method, ex.status, ex.responseSha256]).toEqual(['HEAD', 405, EMPTY_SHA256]);
    expect(failed[0]!.replay).toMatch(/^curl -sS --connect-timeout \S+ --max-time \S+ -i --head -H /);
    const out = await sh(join(dir, 'replay.sh'));
    expect([out.code, out.stderr, out.stdout]).toEqual([0, '', `REQ-METHOD (MUST) ${ex.id}: 405 sha256 ${EMPTY_SHA256} (as in the run)\n`]);
  } finally {
    await judging.close();
  }
}, 60_000);
