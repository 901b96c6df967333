// A message or received value the report shortens is cut between characters, never inside one: an
// emoji (a surrogate pair) across the cut is left out whole, not shown as a lone surrogate's escape
// (\ud83d) of a character that was never sent.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { recordedResponse, type Exchange } from '../lib/http/exchange.js';
import { Redactor } from '../lib/reporting/redact.js';
import { verdictSummary } from '../lib/reporting/console.js';
import { differentialSection } from '../lib/reporting/differential.js';
import { mergeReports } from '../lib/reporting/merge.js';
import { buildReport, MAX_MESSAGE } from '../lib/reporting/report.js';

const record = JSON.parse(readFileSync(new URL('../fixtures/reference/user-details.json', import.meta.url), 'utf8')) as Record<string, unknown>;

async function runOf(answer: Record<string, unknown>) {
  const ex: Exchange = {
    id: 'har.1', title: 'recorded login', origin: { source: 'har', vouched: false },
    request: { method: 'POST', url: 'http://example.test/supportstateuser', headers: { 'content-type': 'application/json' }, body: '{}' },
    response: recordedResponse(200, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify(answer))),
    startedAt: new Date(0).toISOString(), durationMs: 1,
  };
  return runConformance({ baseUrl: 'http://example.test', recorded: [ex], mode: 'traffic', checks: CATALOGUE, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
}

const redactor = () => new Redactor({ showPersonalData: false, secrets: [] });

async function reportOf(answer: Record<string, unknown>) {
  return buildReport(await runOf(answer), { redactor: redactor(), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
}

describe('a shortened text in the report', () => {
  it('a member name whose emoji straddles the cut of a received value: the value ends before the emoji, with no lone surrogate', async () => {
    const name = `${'a'.repeat(198)}\u{1F600}b`;
    const report = await reportOf({ ...record, [name]: 1 });
    const actuals = report.checks.flatMap((c) => c.evidence.map((e) => e.actual)).filter((a) => a?.startsWith('aaaa'));
    expect(actuals.length).toBeGreaterThan(0);
    for (const a of actuals) {
      expect(a).toBe(`${'a'.repeat(198)}…`);
      expect(a).not.toContain('\\ud83d');
    }
  });

  it('a message whose quoted value has an emoji across its cut ends the value before the emoji', async () => {
    // "<name>" is not a member of …: a message past 400 characters has its quoted value cut at 200
    // (the rest of the message kept), and the emoji is at code units 198 and 199 of the value.
    const name = `${'a'.repeat(198)}\u{1F600}${'b'.repeat(250)}`;
    const report = await reportOf({ ...record, [name]: 1 });
    const messages = report.checks.flatMap((c) => c.evidence.map((e) => e.message)).filter((m) => m.startsWith('"aaaa'));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      expect(m).toBe(`"${'a'.repeat(198)}…" (449 characters) is not a member of UserDetailsResponse`);
      expect(m).not.toContain('\\ud83d');
    }
  });

  it('the console\'s line of a smallest failing request ends its body before an emoji that straddles the cut', async () => {
    const report = await reportOf({ ...record, [`${'a'.repeat(198)}\u{1F600}b`]: 1 });
    const failed = report.checks.find((c) => c.status === 'fail')!;
    const body = `{"s":"${'x'.repeat(292)}\u{1F600}${'y'.repeat(20)}"}`; // the emoji at code units 298 and 299
    const shrunk = { from: 'gen.1', exchange: 'gen.2', steps: 1, tried: 2, request: `POST /supportstateuser\ncontent-type: application/json\n\n${body}`, curl: 'curl x', findings: [], seed: 1 };
    const out = verdictSummary({ ...report, checks: report.checks.map((c) => (c === failed ? { ...c, shrunk } : c)) });
    const line = out.split('\n').find((l) => l.includes('POST /supportstateuser {'))!;
    expect(line).toBe(`        POST /supportstateuser {"s":"${'x'.repeat(292)}…`);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('a 1 000-character member name: the evidence path cuts it, and a line of path and message keeps the reason within 400 characters', async () => {
    const name = `N${'a'.repeat(999)}`;
    const report = await reportOf({ ...record, [name]: 1 });
    const unknown = report.checks.find((c) => c.id === 'JSON-UNKNOWN-MEMBERS')!;
    const evidence = unknown.evidence.find((e) => e.message.endsWith('is not a member of UserDetailsResponse'))!;
    expect(evidence.path).toBe(`$.N${'a'.repeat(31)}…(956 characters cut)…${'a'.repeat(12)}`);
    // The text form's line: "  <exchange> <path>: <message>".
    expect(`  ${evidence.exchange} ${evidence.path}: ${evidence.message}`.slice(0, MAX_MESSAGE)).toMatch(/is not a member of UserDetailsResponse$/);
  });
  it('a failed check\'s line whose first finding is at a 1 000-character member name: within 400 characters, the path cut as the evidence shows it, "(+1 more)" kept', async () => {
    const report = await reportOf({ ...record, [`N${'a'.repeat(999)}`]: 1, [`M${'a'.repeat(999)}`]: 1 });
    const unknown = report.checks.find((c) => c.id === 'JSON-UNKNOWN-MEMBERS')!;
    expect(unknown.message.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(unknown.message).toMatch(/^failed on 1 of 1 exchanges \(100%\); first: har\.1: "[NM]a+…" \(1,000 characters\) is not a member of UserDetailsResponse at \$\.[NM]a+…\(956 characters cut\)…a{12} \(\+1 more\)$/);
    expect(unknown.message.endsWith(` at ${unknown.evidence[0]!.path} (+1 more)`)).toBe(true);
  });
  it('a merged failure whose first finding has a 390-character message at a 198-character path: the line within 400 characters, "(+3 more)" kept', async () => {
    const report = await reportOf({ ...record, [`N${'a'.repeat(999)}`]: 1, [`M${'a'.repeat(999)}`]: 1 });
    const run = { runId: 'r', runIdFrom: '--run-id', configurationSha256: 'c', catalogueHash: report.catalogueHash };
    // Each shard's evidence as a report shows it: a message at MAX_MESSAGE's edge, a path at the display bound's.
    const shard = (n: number) => ({
      ...report, run, configuration: { options: { shard: `${n}/2` } },
      checks: report.checks.map((c) => (c.id !== 'JSON-UNKNOWN-MEMBERS' ? c : { ...c, evidence: c.evidence.map((e) => ({ ...e, message: `${'m'.repeat(389)}.`, path: `$.${'p'.repeat(198)}` })) })),
    });
    const merged = mergeReports([shard(1), shard(2)], ['one', 'two']);
    if (!merged.ok) throw new Error(merged.error);
    const line = merged.report.checks.find((c) => c.id === 'JSON-UNKNOWN-MEMBERS')!.message;
    expect(line.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(line).toMatch(/^failed on 2 of 2 exchanges \(100%\); first: har\.1: m+… at \$\.p{198} \(\+3 more\)$/);
  });
  it('a differential report\'s list of the legacy\'s failures: each line within 400 characters, its path cut, "(+1 more)" kept', async () => {
    const legacy = await runOf({ ...record, [`N${'a'.repeat(999)}`]: 1, [`M${'a'.repeat(999)}`]: 1 });
    const section = differentialSection({ candidate: legacy, legacy, operations: [], compared: 0, differences: 0, inconclusive: 0 }, redactor(), 'must');
    const line = section.legacy.failed.find((f) => f.id === 'JSON-UNKNOWN-MEMBERS')!.message;
    expect(line.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(line).toMatch(/^failed on 1 of 1 exchanges \(100%\); first: har\.1: "[NM]a+…" \(1,000 characters\) is not a member of UserDetailsResponse at \$\.[NM]a+…\(956 characters cut\)…a{12} \(\+1 more\)$/);
  });
});
