// How a check becomes a vitest test, shared by the area files of suites/ (one file per area, one test
// per check). The tests present verdicts the engine reached, injected as the run's redacted report:
// by the CLI's presentation child (lib/cli/vitest-run.ts, a finished run), or by conformance.setup.ts
// (`npx vitest run suites`, a user's `conformance` project: it runs the CLI's engine once). Imports stay
// light (no engine): the presentation child loads this, and the engine cost it 15-28 MB.
import * as allure from 'allure-js-commons';
import { describe, inject, test } from 'vitest';
import { CLAUSES, citedClauses } from '../lib/contract/clauses.js';
import { inertUrls, markdownCode } from '../lib/reporting/display.js';
import { findingLines, manifestOf, type Report, type ReportedCheck } from '../lib/reporting/report.js';
import { clauseLink, quotedClause, traceabilityMarkdown } from '../lib/reporting/traceability.js';
import type { ReportedDifferential, ReportedPathDifferences } from '../lib/reporting/differential.js';
import { PLACED_AT, SHOULD_NOT_MET } from './labels.js';
import { differentialKey, OUTCOME, treePlaces, type TreePlace } from './tree-order.js';
import { differsText, exampleLine, noiseText, NOT_COMPARED_TEXT } from '../lib/reporting/difference-texts.js';

/** A catalogue check this run did not run, and why (given by conformance.setup.ts only). */
export interface NotRun {
  readonly id: string;
  readonly title: string;
  readonly area: string;
  readonly operation: string;
  readonly level: string;
  readonly clause: string;
  readonly why: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: Report;
    /** Standalone runs only: the catalogue's checks the run could not feed, shown as skipped. */
    conformanceNotRun?: readonly NotRun[];
  }
}

/** A failed check: an assertion about the target that did not hold (Allure files it as Failed,
 *  not Broken). Shown without a stack: the evidence and the replay are the point, not our call site. */
class CheckAssertionError extends Error {
  constructor(c: ReportedCheck) {
    // The curl command names the target's URL: it lives in its attachment, where nothing is a link.
    const replay = c.replay ? [`replay: the attachment "${c.evidence[0]?.exchange} replay (curl)"`] : [];
    const s = c.shrunk;
    const shrunk = s ? [`smallest failing request: ${s.exchange} (${s.steps ? `shrunk from ${s.from} in ${s.steps} step(s)` : 'no smaller request failed'}; seed ${s.seed}), re-judged: ${s.findings[0]?.message ?? ''}`,
      `replay: the attachment "smallest failing request (curl)"`] : [];
    super(inertUrls([`${c.id} (${c.level}, interface.md ${c.clause}): ${c.message}`, ...findingLines(c, false), ...replay, ...shrunk].join('\n')));
    this.name = 'CheckAssertionError';
    this.stack = this.message;
  }
}

/** What an attachment shows of an exchange a check judged but found nothing in: any record of the
 *  interface whole (JSON about 5 KiB, SOAP about 9), of a flood its head. The text is the
 *  presented one (presented-report.ts): already cut at EVIDENCE_CHARS. */
const HEAD_CHARS = 10 * 1024;
const head = (text: string): string =>
  (text.length > HEAD_CHARS ? `${text.slice(0, HEAD_CHARS)}\n… (the rest: shown with the checks it is evidence for, and in exchanges.json)` : text);
// Every attachment of every test is held in memory until vitest's run ends, so a few checks each
// attaching a quarter-MiB flood would cost the presentation tens of MB: evidence is shown to
// EVIDENCE_CHARS (the report arrives cut there).

async function annotate(c: ReportedCheck, report: Report, place: TreePlace | undefined): Promise<void> {
  await allure.epic(c.area);
  await allure.feature(c.operation);
  await allure.story(c.title);
  await allure.severity(c.level === 'MUST' ? 'critical' : 'minor');
  await labelCheck(c, place);
  const clauses = citedClauses(c.clause).map((id) => CLAUSES.find((x) => x.id === id)!);
  // Relative to report.html: the report directory holds its own copy of the spec.
  for (const clause of clauses) await allure.link(clauseLink(clause), `interface.md ${clause.id} ${clause.title}`);
  await allure.parameter('base URL', report.target.baseUrl);
  await allure.description([
    `**${c.level}** (interface.md ${c.clause}): ${c.requirement}`,
    c.interpretation ? `\n**Interpretation:** ${c.interpretation}` : '',
    // The message quotes what the target sent: a code span keeps it text (no link, no markup).
    `\n**Judges:** ${c.judges}${c.probe ? ` (evidence needs ${c.probe})` : ''}`,
    `\n**Result:** ${c.status}: ${markdownCode(c.message)}`,
    `\n**Exchanges:** ${c.counts.judged} judged, ${c.counts.failed} with findings, ${c.counts.skipped} not judgeable.`,
    c.shrunk ? `\n**Smallest failing request:** ${markdownCode(c.shrunk.exchange)}, shrunk from ${markdownCode(c.shrunk.from)} in ${c.shrunk.steps} step(s) and re-judged on its own answer (seed ${c.shrunk.seed}; see its attachments).` : '',
    // Allure shows a link without an http(s) URL as plain text; the description's Markdown link is
    // an anchor, relative to report.html, so it reaches the spec's copy beside it.
    ...clauses.map((clause) => `\n**interface.md ${clause.id} ${clause.title}** ([the spec](${clauseLink(clause)})), in the spec's words:\n\n${quotedClause(clause)}`),
  ].join('\n'));
  const byId = new Map(report.exchanges.map((e) => [e.id, e]));
  for (const id of c.exchanges) {
    const ex = byId.get(id);
    if (!ex) continue;
    // An exchange is shown whole where it is evidence; elsewhere (every other check that judged it,
    // up to fifty) its head is enough, so one huge answer is not copied fifty times.
    const evidence = c.status === 'fail' && c.evidence.some((e) => e.exchange === id);
    await allure.attachment(`${id} request`, evidence ? ex.request : head(ex.request), 'text/plain');
    await allure.attachment(`${id} response`, evidence ? ex.response : head(ex.response), 'text/plain');
    if (evidence) await allure.attachment(`${id} replay (curl)`, ex.curl, 'text/plain');
  }
  if (c.evidence.length) await allure.attachment('evidence', JSON.stringify(c.evidence, null, 2), 'application/json');
  if (c.shrunk) {
    // The smallest generated request that still fails, re-judged on its own answer, and how to send it again.
    await allure.attachment('smallest failing request', c.shrunk.request, 'text/plain');
    await allure.attachment('smallest failing request (curl)', c.shrunk.curl, 'text/plain');
    const { request: _r, curl: _c, ...rest } = c.shrunk;
    await allure.attachment('shrinking', JSON.stringify(rest, null, 2), 'application/json');
  }
  if (c.groups.length) await allure.attachment('distinct findings', JSON.stringify(c.groups, null, 2), 'application/json');
}

/** What an auditor files a check under (no host, thread, framework or file: auditor-reporter.ts drops
 *  those). The test case id is the check's id, so Allure tracks a check across runs whatever file holds it. */
async function labelCheck(c: { id: string; area: string; level: string; clause: string }, place: TreePlace | undefined): Promise<void> {
  await allure.testCaseId(c.id);
  await allure.label('area', c.area);
  await allure.label('check', c.id);
  await allure.label('level', c.level);
  await allure.label('clause', c.clause);
  await placeInTree(place);
}

/** The outcome the tree groups a result under, and its start in the tree's order (tree-order.ts). */
async function placeInTree(place: TreePlace | undefined): Promise<void> {
  if (!place) return;
  await allure.label(OUTCOME, place.outcome);
  await allure.label(PLACED_AT, String(place.start));
}

/** A test's title: the check's id and title (the level is a label; -t filters on either word). */
const titleOf = (c: { id: string; title: string }): string => `${c.id} ${c.title}`;

/** One area's checks as tests, operation by operation (in the catalogue's order). A failed MUST check
 *  fails its test; a failed SHOULD check fails it only when the run gates on SHOULD (--fail-on should),
 *  otherwise the test passes with a warning annotation, as the exit code does (its Allure result still
 *  says failed); a skipped check is skipped.
 *  A standalone run also lists the catalogue's checks it could not feed, skipped with the reason. */
export function presentArea(area: string): void {
  const report = inject('conformance');
  const notRun = (inject('conformanceNotRun') ?? []).filter((c) => c.area === area);
  // The run's documents ride on the first check of the run.
  const first = report.checks[0];
  const checks = report.checks.filter((c) => c.area === area);
  const places = treePlaces(report, inject('conformanceNotRun') ?? []);
  describe(area, () => {
    for (const operation of [...new Set([...checks, ...notRun].map((c) => c.operation))]) {
      describe(operation, () => {
        for (const c of checks.filter((x) => x.operation === operation)) {
          test(titleOf(c), async (ctx) => {
            if (c === first) await attachRunDocuments(report);
            await annotate(c, report, places.get(c.id));
            if (c.status === 'skip') ctx.skip(c.message);
            if (c.status !== 'fail') return;
            if (c.level === 'MUST' || report.gate === 'should') throw new CheckAssertionError(c);
            // The test passes, as the exit code does; Allure still shows the check as failed
            // (auditor-reporter.ts), with this message: an auditor sees every check that failed.
            const message = `SHOULD not met (the run gates on MUST only): ${new CheckAssertionError(c).message}`;
            await allure.label('result', 'SHOULD not met');
            await allure.label(SHOULD_NOT_MET, message);
            await ctx.annotate(message, 'warning');
          });
        }
        for (const c of notRun.filter((x) => x.operation === operation)) {
          test(titleOf(c), async (ctx) => {
            await labelCheck(c, places.get(c.id));
            ctx.skip(c.why);
          });
        }
      });
    }
  });
}

/** A contract path at which the candidate's answers differ from the legacy's beyond noise. */
class DifferenceAssertionError extends Error {
  constructor(p: ReportedPathDifferences, replays: readonly string[]) {
    super(inertUrls([`${p.operation} ${p.path}: ${differsText(p)}`, ...p.examples.map((e) => `  ${exampleLine(e)}`), ...replays.map((a) => `replay: the attachment "${a}"`)].join('\n')));
    this.name = 'DifferenceAssertionError';
    this.stack = this.message;
  }
}

/** A differential run: one failing test per differing path, a skipped one per noise path, and one
 *  passing test when nothing differs beyond noise (so the section is never silently empty). */
export function presentDifferential(): void {
  const report = inject('conformance');
  const d: ReportedDifferential | undefined = report.differential;
  if (!d) {
    test.skip('Differential: no legacy service was compared (set LEGACY_URL)');
    return;
  }
  const places = treePlaces(report, inject('conformanceNotRun') ?? []);
  describe('Differential', () => {
    const label = async (operation: string, path: string, key: string) => {
      await placeInTree(places.get(differentialKey(key)));
      await allure.testCaseId(`Differential ${operation} ${path}`);
      await allure.label('area', 'Differential');
      await allure.epic('Differential');
      await allure.feature(operation);
      await allure.story(path);
      await allure.description(d.interpretations.map((i) => `- ${i}`).join('\n'));
    };
    for (const p of d.paths) {
      test(`${p.operation} ${p.path} differs from the legacy`, async () => {
        await label(p.operation, p.path, `${p.operation} ${p.path}`);
        await allure.attachment('examples', JSON.stringify(p.examples, null, 2), 'application/json');
        // Its first example's request, to each side, as replay.sh sends it.
        const replays: string[] = [];
        for (const [side, id] of [['legacy', p.shownBy?.legacy], ['candidate', p.shownBy?.candidate]] as const) {
          const ex = report.exchanges.find((e) => e.id === id);
          if (!ex) continue;
          replays.push(`${ex.id} replay (curl, to the ${side})`);
          await allure.attachment(replays.at(-1)!, ex.curl, 'text/plain');
        }
        throw new DifferenceAssertionError(p, replays);
      });
    }
    for (const n of d.noise) {
      test(`${n.operation} ${n.path} is noise`, async (ctx) => {
        await label(n.operation, n.path, `noise ${n.operation} ${n.path}`);
        ctx.skip(noiseText(n));
      });
    }
    if (d.inconclusive) {
      test(`${d.inconclusive} request(s) not compared`, async (ctx) => {
        await allure.label('area', 'Differential');
        await allure.epic('Differential');
        await placeInTree(places.get(differentialKey('inconclusive')));
        ctx.skip(NOT_COMPARED_TEXT);
      });
    }
    if (!d.paths.length) test(`no difference from the legacy beyond noise (${d.compared} requests compared)`, async () => {
      await allure.label('area', 'Differential');
      await allure.epic('Differential');
      await placeInTree(places.get(differentialKey('none')));
    });
  });
}

/** The run's own documents, attached once to the run (not to a check) by the first test. */
async function attachRunDocuments(report: Report): Promise<void> {
  await allure.globalAttachment('traceability.md', traceabilityMarkdown(report), 'text/markdown');
  await allure.globalAttachment('run manifest', JSON.stringify(manifestOf(report), null, 2), 'application/json');
}
