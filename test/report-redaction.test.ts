// A failing check's one-line message quotes its first finding, and a finding quotes what the target
// sent: the line is redacted with what that finding's own exchange taught (its personal values),
// not only with what the run as a whole knows. A value of short words is known only there.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';

const SHORT_WORDS = 'Ab 9 Cd Ef';

function exchange(): Exchange {
  const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const body = JSON.stringify({ ...record, address2: SHORT_WORDS, siteId: SHORT_WORDS });
  return {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(body)),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
}

describe('a failing check\'s message', () => {
  it('is redacted with the scope of the exchange it quotes', async () => {
    const run = await runConformance({ baseUrl: 'http://example.test', recorded: [exchange()], mode: 'traffic', checks: [checkById.get('JSON-GUID')!], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
    const result = run.results[0]!;
    expect(result.status).toBe('fail');
    expect(result.message).toContain(SHORT_WORDS); // the engine quotes it: only the report may mask it
    const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
    const shown = JSON.stringify(report);
    expect(shown).not.toContain(SHORT_WORDS);
    expect(report.checks[0]!.message).toMatch(/«personal: string, 10 chars»/);
  });
});
