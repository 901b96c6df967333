// A target answering through the proxy in one-byte chunks, to eight clients at once. Each answer is
// copied for judging into buffers that grow with it, not a buffer per chunk (an object per byte: four
// answers of 1 MiB took the proxy to 2 GB), and relayed to its client gathered (relayGathered):
// relayed chunk by chunk, each answer in flight cost the proxy about 45 MB (390 MB for four clients,
// 500 for eight, 834 for sixteen; 156 for sixteen answers in one piece). Measured on the proxy's own
// process (its peak RSS, VmHWM), against the 300 MB bound of the README's "Limits" (hostile-cli's).
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEAN, postDigest, servingProgram, stopMeasured } from './helpers/cli.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

const CLIENTS = 8;
/** A record of 1 MiB, each byte its own chunk ("1\r\nX\r\n"). */
const BODY = Buffer.from(`{"userName":"jdoe.support","releaseMessage":"${'r'.repeat(1024 * 1024)}"}`);

let target: RawTarget;
beforeAll(async () => {
  const wire = Buffer.alloc(BODY.length * 6, '1\r\nX\r\n');
  for (let i = 0; i < BODY.length; i++) wire[i * 6 + 3] = BODY[i]!;
  const answer = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'), wire, Buffer.from('0\r\n\r\n')]);
  target = await startRawTarget(() => answer);
});
afterAll(() => target.close());

describe('--proxy before a target answering in one-byte chunks', () => {
  it('every client gets the whole answer, each is judged, and the proxy peaks under 300 MB', async (ctx) => {
    if (platform() !== 'linux') { ctx.annotate('not Linux: the peak RSS of a child process is read from /proc'); return; }
    const dir = mkdtempSync(join(tmpdir(), 'proxy-chunks-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', target.url, '--report-dir', dir, '--judge-priority', 'normal', ...LEAN]);
    try {
      const url = await s.url;
      const digest = createHash('sha256').update(BODY).digest('hex');
      const fetchOne = () => postDigest(`${url}/supportstateuser`, '{"userName":"jdoe.support"}');
      expect(new Set(await Promise.all(Array.from({ length: CLIENTS }, fetchOne)))).toEqual(new Set([`200 ${digest}`]));
      const { code, peakMb: peak } = await stopMeasured(s);
      expect(code).toBe(1); // the record lacks its other members
      ctx.annotate(`peak RSS of the proxy: ${Math.round(peak)} MB`);
      const judged = (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { counts: { exchanges: { exchanges: number } } }).counts.exchanges.exchanges;
      expect([judged, peak < 300 ? 'under 300 MB' : `${Math.round(peak)} MB`]).toEqual([CLIENTS, 'under 300 MB']);
    } finally {
      s.child.kill('SIGKILL');
    }
  });
});
