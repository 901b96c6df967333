// A recorded URL of nine million characters (a query value of words a plus joins). Read whole by the
// redactor, one of its patterns overflowed its stack ("internal error: Maximum call stack size
// exceeded", exit 2) at 1.3 GB. A URL, request target, method or header field past
// MAX_REDACTED_TEXT is now shown by its head, saying how long it is, and its curl command, holding
// that head, is not replayed (its head is longer than curl sends anyway). Judged so, the run then
// peaked at 362 MB, past its 300 MB bound, its heap under 80 MB after each full collection: V8 let
// the garbage of learning and reporting the URL pile up. A HAR run now caps its heap's growth as an
// accounts run does (boundHeapGrowth): 267-276 MB.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { MAX_REDACTED_TEXT } from '../lib/reporting/redact.js';
import { LEAN, runCli } from './helpers/cli.js';

const VALUE = 'ab+'.repeat(3_000_000);
const URL_ = `http://127.0.0.1:1/supportstateuser?userName=${VALUE}`;

it('a HAR entry whose URL is nine million characters is judged (exit 1) under 300 MB, shown by its head, and not replayed, saying why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'har-long-url-'));
  const har = join(dir, 'long-url.har');
  const entry = {
    startedDateTime: '2026-11-27T00:00:00.000Z', time: 1,
    request: { method: 'POST', url: URL_, httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], queryString: [], cookies: [], headersSize: -1, bodySize: 31, postData: { mimeType: 'application/json', text: '{"userName":"x","searchValues":"y"}' } },
    response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], cookies: [], content: { size: 2, mimeType: 'application/json', text: '{}' }, redirectURL: '', headersSize: -1, bodySize: 2 },
    cache: {}, timings: { send: 0, wait: 1, receive: 0 },
  };
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [entry] } }));
  const reports = join(dir, 'reports');
  const run = await runCli(['--har', har, '--report-dir', reports, ...LEAN]);
  const [shown] = JSON.parse(readFileSync(join(reports, 'exchanges.json'), 'utf8')) as { request: string }[];
  const { peakRss } = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as { peakRss: { runBytes: number } };
  const replay = readFileSync(join(reports, 'replay.sh'), 'utf8');
  expect({
    code: run.code,
    internal: /internal error/.test(run.stderr),
    said: shown!.request.split('\n')[0]!.endsWith(`… (${URL_.length} characters; the rest not shown)`),
    shortLine: shown!.request.split('\n')[0]!.length < MAX_REDACTED_TEXT,
    notReplayed: replay.includes(': not replayed: its request head is more than 1 MiB'),
    // The run's bound (test/hostile-cli.test.ts): it took 362 MB until a HAR run capped its heap's growth.
    under300MB: peakRss.runBytes < 300 * 1024 * 1024,
  }).toEqual({ code: 1, internal: false, said: true, shortLine: true, notReplayed: true, under300MB: true });
});
