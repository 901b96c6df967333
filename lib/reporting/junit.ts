// junit.xml, written from the report (not by vitest's reporter), so that a JUnit view agrees with the
// exit code: a test suite per area, a test case per check (classname = area, name = id + title), a
// <failure> for what fails the run (MUST checks, SHOULD checks under --fail-on should, differences
// from the legacy), and an advisory SHOULD finding as <system-out> with its status as a property.
// Values are the report's own (already redacted and display-safe); URLs stay plain: a JUnit view is
// text, and the console shows them the same way.
import { escapeText } from '../xml/write.js';
import { findingLines, type Report, type ReportedCheck } from './report.js';
import type { ReportedDifferential } from './differential.js';
import { differsText, exampleLine, noiseText, NOT_COMPARED_TEXT } from './difference-texts.js';
import { exitCodeOf, verdictWords } from './verdict.js';
import { findingId } from './finding-id.js';

/** Characters XML 1.0 cannot hold, written as \u escapes (the report has made controls visible
 *  already; this keeps the file well-formed whatever a value holds). */
const xmlSafe = (s: string) =>
  s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const text = (s: string) => escapeText(xmlSafe(s));
const attr = (s: string) => text(s).replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;');

interface Case {
  readonly classname: string;
  readonly name: string;
  readonly properties: readonly (readonly [string, string])[];
  readonly outcome:
    | { readonly kind: 'passed' }
    | { readonly kind: 'failed'; readonly message: string; readonly type: string; readonly body: string }
    | { readonly kind: 'skipped'; readonly message: string }
    | { readonly kind: 'error'; readonly message: string }
    | { readonly kind: 'advisory'; readonly body: string };
}

/** What a failed check shows: its findings, distinct findings, the curl that replays its first one,
 *  and the smallest failing generated request. */
function findingText(c: ReportedCheck): string {
  const s = c.shrunk;
  return [
    `${c.id} (${c.level}, interface.md ${c.clause}): ${c.message}`,
    ...findingLines(c, true),
    ...(c.replay ? [`replay: ${c.replay}`] : []),
    ...(s ? [`smallest failing request: ${s.exchange} (${s.steps ? `shrunk from ${s.from} in ${s.steps} step(s)` : 'no smaller request failed'}; seed ${s.seed}), re-judged: ${s.findings[0]?.message ?? ''}`, `replay it: ${s.curl}`] : []),
  ].join('\n');
}

function checkCase(c: ReportedCheck, report: Report): Case {
  const gated = c.level === 'MUST' || report.gate === 'should';
  const status = c.status === 'pass' ? 'passed' : c.status === 'fail' ? 'failed' : 'skipped';
  return {
    classname: c.area,
    name: `${c.id} ${c.title}`,
    properties: [['check', c.id], ['level', c.level], ['clause', `interface.md ${c.clause}`], ['status', status], ['judged', String(c.counts.judged)], ['with findings', String(c.counts.failed)],
      ...(c.status === 'fail' ? [['findings', c.groups.map((g) => findingId(c.id, g)).join(' ')] as const] : [])],
    outcome: c.status === 'pass' ? { kind: 'passed' }
      : c.status === 'skip' ? { kind: 'skipped', message: c.message }
        : gated ? { kind: 'failed', message: c.message, type: c.level, body: findingText(c) }
          : { kind: 'advisory', body: `advisory (SHOULD, not part of the verdict; --fail-on should gates on it):\n${findingText(c)}` },
  };
}

function differentialCases(d: ReportedDifferential, exchanges: Report['exchanges']): Case[] {
  const classname = 'Differential';
  // The request of its first example, to each side, as replay.sh sends it.
  const curlOf = (id: string | undefined) => exchanges.find((e) => e.id === id)?.curl;
  const replays = (p: ReportedDifferential['paths'][number]) => [['legacy', curlOf(p.shownBy?.legacy)], ['candidate', curlOf(p.shownBy?.candidate)]]
    .flatMap(([side, curl]) => (curl ? [`replay (to the ${side}): ${curl}`] : []));
  return [
    ...d.paths.map((p): Case => ({
      classname, name: `${p.operation} ${p.path} differs from the legacy`, properties: [['differing', String(p.differing)], ['compared', String(p.compared)]],
      outcome: {
        kind: 'failed', type: 'difference', message: differsText(p), body: [...p.examples.map(exampleLine), ...replays(p)].join('\n'),
      },
    })),
    ...d.noise.map((n): Case => ({
      classname, name: `${n.operation} ${n.path} is noise`, properties: [],
      outcome: { kind: 'skipped', message: noiseText(n) },
    })),
    ...(d.inconclusive ? [{ classname, name: `${d.inconclusive} request(s) not compared`, properties: [], outcome: { kind: 'skipped', message: NOT_COMPARED_TEXT } } satisfies Case] : []),
    ...(d.paths.length ? [] : [{ classname, name: `no difference from the legacy beyond noise (${d.compared} requests compared)`, properties: [], outcome: { kind: 'passed' } } satisfies Case]),
  ];
}

const caseXml = (c: Case): string => {
  const props = c.properties.length ? `\n      <properties>${c.properties.map(([k, v]) => `<property name="${attr(k)}" value="${attr(v)}"/>`).join('')}</properties>` : '';
  const o = c.outcome;
  const inner = o.kind === 'failed' ? `\n      <failure message="${attr(o.message)}" type="${attr(o.type)}">${text(o.body)}</failure>`
    : o.kind === 'skipped' ? `\n      <skipped message="${attr(o.message)}"/>`
      : o.kind === 'error' ? `\n      <error message="${attr(o.message)}" type="verdict"/>`
      : o.kind === 'advisory' ? `\n      <system-out>${text(o.body)}</system-out>` : '';
  return `    <testcase classname="${attr(c.classname)}" name="${attr(c.name)}" time="0">${props}${inner}${props || inner ? '\n    ' : ''}</testcase>`;
};

const counts = (cases: readonly Case[]) => ({
  tests: cases.length,
  failures: cases.filter((c) => c.outcome.kind === 'failed').length,
  skipped: cases.filter((c) => c.outcome.kind === 'skipped').length,
  errors: cases.filter((c) => c.outcome.kind === 'error').length,
});

/** A run that could not judge (exit 2: incomplete, nothing observed, unreachable, nothing compared)
 *  is one error: with no failure among its skipped checks, a JUnit view would show it passed. */
const verdictCase = (words: string, inProgress: boolean): Case => ({
  classname: 'Verdict', name: `${inProgress ? 'the run was in progress' : 'the run could not judge'}: ${words}`, properties: [['exit code', '2']],
  outcome: { kind: 'error', message: `${words} (exit 2)` },
});

export function junitXml(report: Report): string {
  const words = verdictWords(report);
  const suites: [string, Case[]][] = [...new Set(report.checks.map((c) => c.area))].map((area) => [area, report.checks.filter((c) => c.area === area).map((c) => checkCase(c, report))]);
  if (report.differential) suites.push(['Differential', differentialCases(report.differential, report.exchanges)]);
  if (exitCodeOf(report) === 2) suites.push(['Verdict', [verdictCase(words, report.inProgress === true)]]);
  const all = counts(suites.flatMap(([, cases]) => cases));
  const suiteXml = suites.map(([name, cases]) => {
    const n = counts(cases);
    return `  <testsuite name="${attr(name)}" tests="${n.tests}" failures="${n.failures}" errors="${n.errors}" skipped="${n.skipped}" time="0" timestamp="${attr(report.startedAt)}">
    <properties><property name="verdict" value="${attr(words)}"/><property name="gate" value="${report.gate ?? 'must'}"/><property name="target" value="${attr(report.target.baseUrl)}"/></properties>
${cases.map(caseXml).join('\n')}
  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${attr(`conformance: ${words}`)}" tests="${all.tests}" failures="${all.failures}" errors="${all.errors}" skipped="${all.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">
${suiteXml.join('\n')}
</testsuites>
`;
}
