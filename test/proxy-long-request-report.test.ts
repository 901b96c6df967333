// A client's request body of 4 MiB through the proxy: its reports show the body's first 256 KiB
// (MAX_SHOWN_TEXT), redacted as an answer's head is, and its curl command leaves the body out (past
// MAX_REPLAYED_BODY), so replay.sh says why it does not replay it. Redacted whole (for the shown text and again for the
// command), that one body took the proxy from about 180 MB to 760 at its report; the bound here is
// the README's 300 MB (Limits). Measured on the proxy's own process (its peak RSS, VmHWM).
// And a client's request whose personal value is one token of 9.5 MiB with one character beyond
// ASCII: the redactor's word pattern overflowed its stack on it (the judge stopped: "proxy-judge:
// internal error: Maximum call stack size exceeded", exit 2), and its spellings and words, learned
// whole, took the proxy to 350 MB. It is judged like any request now, under the README's 250 MB goal
// for floods (Misbehaving targets).
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
/** Under the default body cap of 10 MiB, as UTF-8. */
const TOKEN = `${'q'.repeat(9.5 * 1024 * 1024)}é`;

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

const OUTPUTS = ['exchanges.json', 'summary.json', 'replay.sh', 'traceability.md'];

/** One client's POST of `body` through a proxy of its own, stopped once answered: the report
 *  directory, the proxy's exit code, peak RSS and output. Undefined where /proc cannot tell the peak. */
async function proxied(body: string, prefix: string, ctx: { annotate: (note: string) => unknown }) {
  if (platform() !== 'linux') { ctx.annotate('not Linux: the peak RSS of a child process is read from /proc'); return undefined; }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const s = servingProgram('cli/main', ['--proxy', '0', '--base-url', targetUrl, '--report-dir', dir, ...LEAN]);
  try {
    const url = await s.url;
    const answer = await fetch(`${url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect([answer.status, await answer.text()]).toEqual([200, '{}']);
    const { code, peakMb } = await stopMeasured(s);
    ctx.annotate(`peak RSS of the proxy: ${Math.round(peakMb)} MB`);
    const leaked = OUTPUTS.filter((f) => readFileSync(join(dir, f), 'utf8').includes('q'.repeat(16)));
    return { dir, code, peakMb, leaked, output: s.output() };
  } finally {
    s.child.kill('SIGKILL');
  }
}

describe('--proxy with a request body of 4 MiB', () => {
  it('shows its first 256 KiB redacted, leaves it out of the curl command (replay.sh says why), and peaks under 300 MB', async (ctx) => {
    const run = await proxied(BODY, 'proxy-long-request-', ctx);
    if (!run) return;
    expect(run.code).toBe(1); // the answer lacks the record's members
    const [shown] = JSON.parse(readFileSync(join(run.dir, 'exchanges.json'), 'utf8')) as { request: string; curl: string }[];
    const replay = readFileSync(join(run.dir, 'replay.sh'), 'utf8');
    expect({
      peak: run.peakMb < 300 ? 'under 300 MB' : `${Math.round(run.peakMb)} MB`,
      masked: shown!.request.includes(`{"userName":"«personal: string, `),
      said: shown!.request.endsWith(`\n… (${BODY.length} characters; the rest not shown)`),
      shownWithin: shown!.request.length < MAX_SHOWN_TEXT,
      leftOutOfCurl: shown!.curl.includes(`--data-binary '${BODY_TOO_LONG}'`),
      replaySays: replay.includes(': not replayed: its request body is longer than the 512 KiB a replay carries'),
      leaked: run.leaked,
    }).toEqual({ peak: 'under 300 MB', masked: true, said: true, shownWithin: true, leftOutOfCurl: true, replaySays: true, leaked: [] });
  });
});

describe('--proxy with a personal value of one 9.5 MiB token', () => {
  it('judges it (exit 1: the answer lacks the record), never stops its judge, peaks under 250 MB, and shows none of it', async (ctx) => {
    const run = await proxied(JSON.stringify({ userName: TOKEN, searchValues: 'x' }), 'proxy-long-value-', ctx);
    if (!run) return;
    expect({
      code: run.code,
      stopped: run.output.split('\n').find((l) => /internal error|judge stopped/.test(l)) ?? 'no',
      peak: run.peakMb < 250 ? 'under 250 MB' : `${Math.round(run.peakMb)} MB`,
      leaked: run.leaked,
    }).toEqual({ code: 1, stopped: 'no', peak: 'under 250 MB', leaked: [] });
  });
});
