// Registers one vitest test per check, from the run's redacted report (injected by the CLI's
// presentation child). The tests present verdicts the engine reached; vitest's reporters (Allure,
// JUnit) do the rest. Grouping: area -> operation (describe) -> check (test).
import * as allure from 'allure-js-commons';
import { describe, inject, test } from 'vitest';
import { CLAUSES, citedClauses } from '../contract/clauses.js';
import { inertUrls, markdownCode } from './display.js';
import { findingLines, manifestOf, type Report, type ReportedCheck } from './report.js';
import { clauseLink, quotedClause, traceabilityMarkdown } from './traceability.js';
import type { ReportedDifferential, ReportedPathDifferences } from './differential.js';
import { differsText, exampleLine, noiseText, NOT_COMPARED_TEXT } from './difference-texts.js';

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: Report;
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

async function annotate(c: ReportedCheck, report: Report): Promise<void> {
  await allure.epic(c.area);
  await allure.feature(c.operation);
  await allure.story(c.title);
  await allure.severity(c.level === 'MUST' ? 'critical' : 'minor');
  await allure.tags(c.id, c.level);
  await allure.label('checkId', c.id);
  await allure.label('level', c.level);
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

/** Every check of the run, area by area (in the catalogue's order), operation by operation. */
export function presentAll(): void {
  const report = inject('conformance');
  // The run's documents ride on the first test presented.
  const first = report.checks[0];
  const areas = [...new Set(report.checks.map((c) => c.area))];
  for (const area of areas) {
    describe(area, () => {
      const checks = report.checks.filter((c) => c.area === area);
      for (const operation of [...new Set(checks.map((c) => c.operation))]) {
        describe(operation, () => {
          for (const c of checks.filter((x) => x.operation === operation)) {
            test(`${c.id} [${c.level}] ${c.title}`, async (ctx) => {
              if (c === first) await attachRunDocuments(report);
              await annotate(c, report);
              if (c.status === 'skip') ctx.skip(c.message);
              if (c.status === 'fail') throw new CheckAssertionError(c);
            });
          }
        });
      }
    });
  }
  if (report.differential) presentDifferential(report.differential);
}

/** A contract path at which the candidate's answers differ from the legacy's beyond noise. */
class DifferenceAssertionError extends Error {
  constructor(p: ReportedPathDifferences) {
    super(inertUrls([`${p.operation} ${p.path}: ${differsText(p)}`, ...p.examples.map((e) => `  ${exampleLine(e)}`)].join('\n')));
    this.name = 'DifferenceAssertionError';
    this.stack = this.message;
  }
}

/** A differential run: one failing test per differing path, a skipped one per noise path, and one
 *  passing test when nothing differs beyond noise (so the section is never silently empty). */
function presentDifferential(d: ReportedDifferential): void {
  describe('Differential', () => {
    const label = async (operation: string, path: string) => {
      await allure.epic('Differential');
      await allure.feature(operation);
      await allure.story(path);
      await allure.description(d.interpretations.map((i) => `- ${i}`).join('\n'));
    };
    for (const p of d.paths) {
      test(`${p.operation} ${p.path} differs from the legacy`, async () => {
        await label(p.operation, p.path);
        await allure.attachment('examples', JSON.stringify(p.examples, null, 2), 'application/json');
        throw new DifferenceAssertionError(p);
      });
    }
    for (const n of d.noise) {
      test(`${n.operation} ${n.path} is noise`, async (ctx) => {
        await label(n.operation, n.path);
        ctx.skip(noiseText(n));
      });
    }
    if (d.inconclusive) {
      test(`${d.inconclusive} request(s) not compared`, async (ctx) => {
        await allure.epic('Differential');
        ctx.skip(NOT_COMPARED_TEXT);
      });
    }
    if (!d.paths.length) test(`no difference from the legacy beyond noise (${d.compared} requests compared)`, async () => { await allure.epic('Differential'); });
  });
}

/** The run's own documents, attached once to the run (not to a check) by the first test. */
async function attachRunDocuments(report: Report): Promise<void> {
  await allure.globalAttachment('traceability.md', traceabilityMarkdown(report), 'text/markdown');
  await allure.globalAttachment('run manifest', JSON.stringify(manifestOf(report), null, 2), 'application/json');
}
