// A value the reports mask inside a URL's query or a form body is written URL-encoded
// (%C2%ABpersonal%3A%20string%2C%201%20chars%C2%BB), with no « for replay.sh to see: its curl sent
// the marker's text as the value, a request the client never sent (with the client's Content-Length
// beside a longer body), and compared what came back with the run's answer as if it were a replay.
// Such a request is listed as not replayed, as one holding a plain marker is.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { sendRaw } from './helpers/client-requests.js';

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

it('replay.sh of the judging reference does not send a client request whose query or form body holds a masked value: it lists it as not replayed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-url-markers-'));
  const judging = await startJudgingReference({ reportDir: dir, print: () => undefined, reports: new Set(['summary']) });
  try {
    // userName is personal data: masked in the query of the first, in the form body of the second.
    await sendRaw(judging.url, { method: 'GET', path: '/supportstateuser?userName=jdoe', headers: {}, body: '' });
    await sendRaw(judging.url, { method: 'POST', path: '/supportstateuser', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'userName=jdoe' });
    const before = (await judging.report()).report;
    const failed = before.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.id).sort()).toEqual(['REQ-JSON-BODY', 'REQ-JSON-CONTENT-TYPE', 'REQ-METHOD']);
    for (const c of failed) expect(c.replay, c.id).toContain('%C2%ABpersonal%3A%20string%2C%204%20chars%C2%BB');
    const out = await sh(join(dir, 'replay.sh'));
    expect([out.code, out.stderr]).toEqual([0, '']);
    expect(out.stdout.trim().split('\n').sort()).toEqual(failed.map((c) => `${c.id} (${c.level}) ${c.evidence[0]!.exchange}: not replayed: its request holds personal data (userName), masked in the reports: send its curl command from summary.json by hand, each value in place of its marker`).sort());
    // Nothing reached the reference from the script.
    expect((await judging.report()).report.exchanges.length).toBe(before.exchanges.length);
  } finally {
    await judging.close();
  }
});
