// A client's request body of 4 MiB through the proxy: its reports show the body's first 256 KiB
// (MAX_SHOWN_TEXT), redacted as an answer's head is, and its curl command leaves the body out (past
// MAX_REPLAYED_BODY), so replay.sh says why it does not replay it. Redacted whole (for the shown text and again for the
// command), that one body took the proxy from about 180 MB to 760 at its report; the bound here is
// the README's 300 MB (Limits). Measured on the proxy's own process (its peak RSS, VmHWM).
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_TOO_LONG } from '../lib/reporting/exchange-text.js';
import { MAX_SHOWN_TEXT } from '../lib/reporting/redact.js';
import { LEAN, servingProgram, stopMeasured } from './helpers/cli.js';

/** A personal value (userName, 2.1) of 4 MiB: the redaction must hide every character shown of it. */
const NAME = 'q'.repeat(4 * 1024 * 1024);
const BODY = JSON.stringify({ userName: NAME, searchValues: 'x' });

let target: Server;
let targetUrl: string;
beforeAll(async () => {
  target = createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}'); });
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => target.close(() => r())));

describe('--proxy with a request body of 4 MiB', () => {
  it('shows its first 256 KiB redacted, leaves it out of the curl command (replay.sh says why), and peaks under 300 MB', async (ctx) => {
    if (platform() !== 'linux') { ctx.annotate('not Linux: the peak RSS of a child process is read from /proc'); return; }
    const dir = mkdtempSync(join(tmpdir(), 'proxy-long-request-'));
    const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', targetUrl, '--report-dir', dir, ...LEAN]);
    try {
      const url = await s.url;
      const answer = await fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
      expect([answer.status, await answer.text()]).toEqual([200, '{}']);
      const { code, peakMb } = await stopMeasured(s);
      expect(code).toBe(1); // the answer lacks the record's members
      ctx.annotate(`peak RSS of the proxy: ${Math.round(peakMb)} MB`);
      const [shown] = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { request: string; curl: string }[];
      const replay = readFileSync(join(dir, 'replay.sh'), 'utf8');
      expect({
        peak: peakMb < 300 ? 'under 300 MB' : `${Math.round(peakMb)} MB`,
        masked: shown!.request.includes(`{"userName":"«personal: string, `),
        said: shown!.request.endsWith(`\n… (${BODY.length} characters; the rest not shown)`),
        shownWithin: shown!.request.length < MAX_SHOWN_TEXT,
        leftOutOfCurl: shown!.curl.includes(`--data-binary '${BODY_TOO_LONG}'`),
        replaySays: replay.includes(': not replayed: its request body is longer than the 512 KiB a replay carries'),
        leaked: ['exchanges.json', 'summary.json', 'replay.sh', 'traceability.md'].filter((f) => readFileSync(join(dir, f), 'utf8').includes('q'.repeat(16))),
      }).toEqual({ peak: 'under 300 MB', masked: true, said: true, shownWithin: true, leftOutOfCurl: true, replaySays: true, leaked: [] });
    } finally {
      s.child.kill('SIGKILL');
    }
  });
});
