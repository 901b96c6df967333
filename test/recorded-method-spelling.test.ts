// A recorded request's method is evidence: methods are case-sensitive (RFC 9110 9.1), so a recording's
// `Get` or `post` is shown as recorded wherever the report shows its exchange (REQ-METHOD's finding,
// the kinds observed, the exchanges of other services, the request text), never upper-cased.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'recorded-method-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function har(): string {
  const record = readFileSync('fixtures/reference/user-details.json', 'utf8');
  const entry = (method: string, path: string) => ({
    startedDateTime: '2026-01-01T00:00:00.000Z', time: 1,
    request: { method, url: `http://127.0.0.1:9${path}`, headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: '{}' } },
    response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }], content: { text: record } },
  });
  const path = join(work, 'methods.har');
  writeFileSync(path, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [entry('Get', '/supportstateuser'), entry('post', '/supportstateuser'), entry('get', '/elsewhere')] } }));
  return path;
}

describe('a recorded method is shown as recorded', () => {
  it('REQ-METHOD fails `Get` and `post` (case-sensitive) and its findings, the kinds observed, the other services\' exchanges and the request text all show `Get`, `post`, `get`', async () => {
    const dir = join(work, 'r');
    const r = await runCli(['--reports', 'summary', '--har', har(), '--report-dir', dir]);
    expect(r.code).toBe(1);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const check = s.checks.find((c: { id: string }) => c.id === 'REQ-METHOD');
    expect(check.evidence[0]).toMatchObject({ exchange: 'har.1', message: '"Get" on a route of SupportStateUserLoginRequest, expected POST or OPTIONS', actual: 'Get' });
    // A method token is case-sensitive (RFC 9110 9.1): `post` is no POST.
    expect(check.evidence[1]).toMatchObject({ exchange: 'har.2', message: '"post" on a route of SupportStateUserLoginRequest, expected POST or OPTIONS', actual: 'post' });
    expect(check.evidence).toHaveLength(2);
    expect(r.stdout).toContain('got "Get" at request.method');
    expect(r.stdout).toContain('har.1: "Get" on a route of SupportStateUserLoginRequest');
    expect(Object.keys(s.coverage.kinds).sort()).toEqual(['SupportStateUserLoginRequest Get route -> JSON', 'SupportStateUserLoginRequest post route -> JSON']);
    expect(s.counts.exchanges.notInterface).toEqual({ 'get /elsewhere': 1 });
    const exchanges = JSON.parse(readFileSync(join(dir, 'exchanges.json'), 'utf8')) as { id: string; method: string; request: string }[];
    // The failing exchange, kept as evidence: its request line and its curl as recorded.
    expect(exchanges.map((e) => [e.id, e.method, e.request.split(' ')[0]])).toEqual([['har.1', 'Get', 'Get'], ['har.2', 'post', 'post']]);
    expect(check.replay).toContain(' -X Get ');
  });
});
