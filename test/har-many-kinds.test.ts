// A recording whose entries each have a method of their own, some of a megabyte. Every distinct label
// of a kind (its method whole) was a key of the run's counts: 150 000 methods took the run to 329 MB,
// its summary.json to 19 MB, and traceability.md failed ("Maximum call stack size exceeded"); 60
// methods of 4 MiB, 557 MB. A method or path is now counted by its head, length and digest (two
// stay two), and kinds past the first 500 are counted together.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { LEAN, runCli } from './helpers/cli.js';

const entry = (method: string, path = '/supportstateuser') => ({
  startedDateTime: '2026-11-28T00:00:00.000Z', time: 1,
  request: { method, url: `http://127.0.0.1:1${path}`, httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], queryString: [], cookies: [], headersSize: -1, bodySize: 2, postData: { mimeType: 'application/json', text: '{}' } },
  response: { status: 405, statusText: 'Method Not Allowed', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], cookies: [], content: { size: 2, mimeType: 'application/json', text: '{}' }, redirectURL: '', headersSize: -1, bodySize: 2 },
  cache: {}, timings: { send: 0, wait: 1, receive: 0 },
});

it('600 distinct methods, 3 of a MiB, and 2 other services\' paths of a MiB: every kind counted, none kept longer than 160 characters, the long ones apart, kinds past 500 counted together; the reports written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'har-many-kinds-'));
  const har = join(dir, 'many.har');
  const long = (k: number) => `M${'X'.repeat(1 << 20)}${k}`;
  const entries = [...[0, 1, 2].map((k) => entry(long(k))), ...Array.from({ length: 600 }, (_, k) => entry(`M${k}`)), ...[0, 1].map((k) => entry('POST', `/elsewhere/${'p'.repeat(1 << 20)}${k}`))];
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  const reports = join(dir, 'reports');
  const run = await runCli(['--har', har, '--report-dir', reports, ...LEAN]);
  const { counts } = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as { counts: { exchanges: { kinds: Record<string, number>; notInterface: Record<string, number>; notInterfaceTotal: number } } };
  const { kinds, notInterface, notInterfaceTotal } = counts.exchanges;
  const keys = [...Object.keys(kinds), ...Object.keys(notInterface)];
  expect({
    code: run.code,
    stderr: run.stderr,
    kinds: Object.keys(kinds).length,
    counted: Object.values(kinds).reduce((a, b) => a + b, 0),
    longest: Math.max(...keys.map((k) => k.length)) <= 160,
    longKinds: Object.keys(kinds).filter((k) => k.includes('(1048578 characters, SHA-256 ')).length,
    past: kinds['kinds past the first 500'],
    others: [Object.keys(notInterface).length, notInterfaceTotal],
    traceability: readFileSync(join(reports, 'traceability.md'), 'utf8').includes('kinds past the first 500'),
  }).toEqual({ code: 1, stderr: '', kinds: 501, counted: 603, longest: true, longKinds: 3, past: 103, others: [2, 2], traceability: true });
});
