// Canary for what a client sends: a recorded request (--har) carrying the recovery token in its query
// string and in an application/x-www-form-urlencoded body, echoed by the answer. No output may hold it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, WITHOUT_HTML } from './helpers/cli.js';
import { files, readable } from './helpers/outputs.js';

const IN_QUERY = 'CANARY-QSFORM-TOKEN-1';
const IN_FORM = 'CANARY-FORMBODY/TOKEN+2';

const har = (): string => {
  const entry = {
    startedDateTime: '2026-11-25T08:00:00.000Z', time: 1, cache: {}, timings: { send: 0, wait: 1, receive: 0 },
    request: {
      method: 'POST', url: `http://127.0.0.1:9/user/confirmemail?recoveryToken=${IN_QUERY}`, httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }], queryString: [], cookies: [], headersSize: -1, bodySize: -1,
      postData: { mimeType: 'application/x-www-form-urlencoded', text: `recoveryToken=${encodeURIComponent(IN_FORM)}&ownerId=7` },
    },
    response: {
      status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], cookies: [],
      content: { size: -1, mimeType: 'application/json', text: JSON.stringify({ echo: `${IN_QUERY} ${IN_FORM}` }) }, redirectURL: '', headersSize: -1, bodySize: -1,
    },
  };
  const path = join(mkdtempSync(join(tmpdir(), 'client-secrets-')), 'form.har');
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries: [entry] } }));
  return path;
};

describe('secrets a client sends in a query string or a form body', () => {
  it('are learned there and reach no output, echoed or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-secrets-run-'));
    const r = await runCli(['--har', har(), '--report-dir', dir, '--quiet', ...WITHOUT_HTML]);
    expect(r.code).toBeLessThan(2);
    const outputs = [r.stdout + r.stderr, ...files(dir).map((f) => readable(f))].join('\n');
    expect(outputs).toMatch(/recoveryToken=/); // the request was shown
    for (const canary of [IN_QUERY, IN_FORM, encodeURIComponent(IN_FORM)]) expect(outputs.toLowerCase()).not.toContain(canary.slice(0, 12).toLowerCase());
  });
});
