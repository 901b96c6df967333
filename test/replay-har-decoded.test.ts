// replay.sh after --har: a recording holds a compressed answer decoded (HAR 1.2's content.text), so
// the run's responseSha256 is of the decoded body; a replay of the recorded request, which offers
// gzip again, gets the compressed bytes. Its curl decodes them (--compressed, the request's own
// Accept-Encoding kept), so a failure that reproduces is said to ("as in the run"), not "the run got
// another SHA-256".
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const sh = (script: string) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
  execFile('sh', [script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 }, (e, stdout, stderr) =>
    resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, stdout, stderr }));
});

const ref = useReference({ variants: [...STYLES.filter((s) => s.name === 'gzip'), ...FAULTS.filter((f) => f.name === 'callback-renamed')] });

it('a failed check on a HAR entry whose answer was gzip is replayed by replay.sh with the run\'s status and SHA-256 (as in the run)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-har-decoded-'));
  const url = `${ref.url}/supportstateuser?callback=cb`;
  const sent = { 'content-type': 'application/json', 'accept-encoding': 'gzip' };
  // fetch decodes the body, as a browser's recorder writes it; the headers say it came gzip.
  const got = await fetch(url, { method: 'POST', headers: sent, body: '{}' });
  const text = await got.text();
  expect(got.headers.get('content-encoding')).toBe('gzip');
  const pairs = (h: Record<string, string> | Headers) => [...(h instanceof Headers ? h.entries() : Object.entries(h))].map(([name, value]) => ({ name, value }));
  const har = join(dir, 'gzip.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [{
    startedDateTime: new Date().toISOString(), time: 1,
    request: { method: 'POST', url, httpVersion: 'HTTP/1.1', headers: pairs(sent), queryString: [], cookies: [], headersSize: -1, bodySize: 2, postData: { mimeType: 'application/json', text: '{}' } },
    response: { status: got.status, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: pairs(got.headers), cookies: [], content: { size: text.length, mimeType: 'text/javascript', text }, redirectURL: '', headersSize: -1, bodySize: -1 },
    cache: {}, timings: { send: 0, wait: 1, receive: 0 },
  }] } }));
  const r = await runCli(['--har', har, '--report-dir', join(dir, 'out'), '--reports', 'summary', '--quiet']);
  expect(r.code, r.stderr).toBe(1);
  const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { checks: { id: string; status: string; evidence: { exchange: string }[] }[]; exchanges: { id: string; status: number; responseSha256: string }[] };
  expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['JSONP-CALLBACK']);
  const ex = summary.exchanges.find((e) => e.id === 'har.1')!;
  const out = await sh(join(dir, 'out', 'replay.sh'));
  expect([out.code, out.stderr, out.stdout]).toEqual([0, '', `JSONP-CALLBACK (MUST) har.1: 200 sha256 ${ex.responseSha256} (as in the run)\n`]);
}, 60_000);
