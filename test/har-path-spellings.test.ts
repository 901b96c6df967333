// Interface paths as a ServiceStack target on ASP.NET Core serves them, spelled otherwise: a
// percent-encoded letter (Kestrel decodes it), a trailing or doubled slash (RestPath drops empty
// segments). They were counted as other services' exchanges, so a recording (or a proxied client)
// using them escaped judging: the run said nothing of this interface was observed.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { LEAN, runCli } from './helpers/cli.js';

const entry = (path: string) => ({
  startedDateTime: '2026-11-28T00:00:00.000Z', time: 1,
  request: { method: 'POST', url: `http://127.0.0.1:1${path}`, httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], queryString: [], cookies: [], headersSize: -1, bodySize: 2, postData: { mimeType: 'application/json', text: '{}' } },
  response: { status: 405, statusText: 'Method Not Allowed', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], cookies: [], content: { size: 2, mimeType: 'application/json', text: '{}' }, redirectURL: '', headersSize: -1, bodySize: 2 },
  cache: {}, timings: { send: 0, wait: 1, receive: 0 },
});

it('logins at /%73upportstateuser, /supportstateuser/ and //api//supportstateuser are judged as logins (their 405s fail), none counted as another service', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'har-path-spellings-'));
  const har = join(dir, 'spellings.har');
  writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: ['/%73upportstateuser', '/supportstateuser/', '//api//supportstateuser'].map(entry) } }));
  const reports = join(dir, 'reports');
  const run = await runCli(['--har', har, '--report-dir', reports, ...LEAN]);
  const { counts } = JSON.parse(readFileSync(join(reports, 'summary.json'), 'utf8')) as { counts: { exchanges: { kinds: Record<string, number>; notInterfaceTotal: number } } };
  expect({ code: run.code, stderr: run.stderr, kinds: counts.exchanges.kinds, others: counts.exchanges.notInterfaceTotal })
    .toEqual({ code: 1, stderr: '', kinds: { 'SupportStateUserLoginRequest POST route -> JSON': 3 }, others: 0 });
});
