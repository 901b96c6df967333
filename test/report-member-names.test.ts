// The report's own member names (gate, title, exchanges, …) are the harness's words: a secret or a
// personal value spelled like one ("Gate", a --header "X-Api-Key: exchanges") is masked where it
// stands as a value, never as a member name. Masked there, summary.json lost its gate (a run gated on
// SHOULD wrote a junit.xml with no failure and was rebuilt CONFORMANT) or its counts.exchanges (the
// run ended in an internal error).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const NAMES = ['Gate', 'title', 'exchanges', 'Evidence', 'groups'];

/** Every member name of a report, at any depth. */
const memberNames = (value: unknown): string[] => (Array.isArray(value) ? value.flatMap(memberNames)
  : value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...memberNames(v)]) : []);

describe('a secret spelled like a member name of the report', () => {
  it('leaves every member name as the harness wrote it, and is masked where it stands as a value', async () => {
    // REQ-JSON-CONTENT-TYPE fails (a JSON record labelled text/plain), so checks carry evidence and groups.
    const ex: Exchange = {
      id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
      request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'text/plain', 'x-note': 'gate' }, body: '{"userName":"exchanges"}' },
      response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from('{}')),
      startedAt: new Date(0).toISOString(), durationMs: 1,
    };
    const run = await runConformance({ baseUrl: 'http://example.test', recorded: [ex], mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
    const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: NAMES }), harness: { name: 'h', version: '0' }, targetDescription: 'recording', configuration: {}, gate: 'should' });
    expect(memberNames(report).filter((k) => k.includes('«'))).toEqual([]);
    expect(report.gate).toBe('should');
    expect(report.counts.exchanges.exchanges).toBe(1);
    expect(report.checks.every((c) => typeof c.title === 'string' && Array.isArray(c.evidence) && Array.isArray(c.groups))).toBe(true);
    // The values themselves stay masked.
    const shown = report.exchanges.find((e) => e.id === 'har.1')!.request;
    expect(shown).toContain('x-note: «secret header: string, 4 chars»');
    expect(shown).not.toMatch(/exchanges/i);
  });
});

describe('a secret or personal value spelled like a key of the configuration', () => {
  const reference = useReference();
  it('a real run: the configuration\'s keys (an option, an effective value) stay as the harness wrote them, their secret and personal values masked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'configuration-names-'));
    const r = await runCli(['--base-url', reference.url, '--report-dir', dir, '--timeout', '60000', '--reports', 'summary',
      '--header', 'X-Api-Key: timeoutMs', '--header', 'X-Two: report-dir'], { LOGIN_USER_NAME: 'maxBodyBytes' });
    expect(r.code).toBe(0);
    const { configuration } = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { configuration: Record<string, unknown> & { options: Record<string, unknown>; headers: Record<string, string>; requestValues: { login: Record<string, string> } } };
    expect(memberNames(configuration).filter((k) => k.includes('«'))).toEqual([]);
    expect([configuration.timeoutMs, configuration.maxBodyBytes, configuration.options['report-dir'], configuration.options.timeout]).toEqual([60000, 10 * 1024 * 1024, dir, 60000]);
    expect(configuration.headers).toEqual({ 'x-api-key': '«secret header: string, 9 chars»', 'x-two': '«secret header: string, 10 chars»' });
    expect(configuration.requestValues.login.userName).toBe('«personal: string, 12 chars»');
  });
});
