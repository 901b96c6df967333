// The report console printed a failed check's `got "…"` line with its value cut to 200 characters
// before display escaping: a value of U+202E (shown as `\u202e`, 6 characters) printed 1 200. The
// value is now cut by its printed length, as a failed check's line is (printedLength). So is the path
// after it (`at $[…]`): a member name of 60 U+202E, under 200 characters whole, printed 366.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { verdictSummary } from '../lib/reporting/console.js';
import { MAX_SHOWN_VALUE } from '../lib/reporting/display.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';

const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;

async function consoleOf(answer: Record<string, unknown>): Promise<string> {
  const ex: Exchange = {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify(answer))),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  const run = await runConformance({ baseUrl: 'http://example.test', recorded: [ex], mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
  return verdictSummary(buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} }));
}

describe('the report console\'s got line', () => {
  it('a received value of 300 U+202E and of 150 U+E0041: printed within MAX_SHOWN_VALUE characters between its quotes, cut with "…" between escapes', async () => {
    for (const [name, shape] of [['\u202e'.repeat(300), /^(?:\\u202e)+…$/], ['\u{e0041}'.repeat(150), /^(?:\\u\{e0041\})+…$/]] as const) {
      const got = (await consoleOf({ ...record, [name]: 1 })).split('\n').map((l) => /^ {6}got "(.*)"(?: at .*)?$/.exec(l)?.[1]).filter((v) => v !== undefined);
      expect(got.length, String(shape)).toBeGreaterThan(0);
      for (const v of got) {
        expect(v.length, String(shape)).toBeLessThanOrEqual(MAX_SHOWN_VALUE);
        expect(v, String(shape)).toMatch(shape);
      }
    }
  });

  it('a path of member names of U+202E (60 each, nested thrice): printed within MAX_SHOWN_VALUE characters after "at", in the got line and the failed check\'s line, cut with "…"', async () => {
    const name = '\u202e'.repeat(60);
    const out = (await consoleOf({ ...record, [name]: { [name]: { [name]: 1 } } })).split('\n');
    const paths = out.map((l) => /^(?: {6}got "(?:.*)"|  ✗ JSON-UNKNOWN-MEMBERS .*) at (\$\[.*?)(?: \(\+\d+ more\))?$/.exec(l)?.[1]).filter((p) => p !== undefined);
    expect(paths).toHaveLength(2);
    for (const p of paths) {
      expect(p.length).toBeLessThanOrEqual(MAX_SHOWN_VALUE);
      expect(p).toMatch(/^\$\["(?:\\u202e)+…$/);
    }
  });
});
