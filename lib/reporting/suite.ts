// Registers one vitest test per check of an area, from the run's redacted report (injected by the
// CLI). The tests present verdicts the engine reached; vitest's reporters (Allure, JUnit) and
// filters do the rest. Grouping: area (file) -> operation (describe) -> check (test).
import * as allure from 'allure-js-commons';
import { describe, inject, test } from 'vitest';
import type { Area } from '../checks/check.js';
import { CLAUSES, citedClauses, SPEC_PATH } from '../contract/clauses.js';
import type { Report, ReportedCheck } from './report.js';

declare module 'vitest' {
  export interface ProvidedContext {
    conformance: Report;
  }
}

/** A failed check, shown without a stack: the evidence is the point, not our call site. */
class CheckFailed extends Error {
  constructor(c: ReportedCheck) {
    const evidence = c.evidence.slice(0, 10).map((e) => `  ${e.exchange}${e.path ? ` ${e.path}` : ''}: ${e.message}`);
    super([`${c.id} (${c.level}, interface.md ${c.clause}): ${c.message}`, ...evidence].join('\n'));
    this.name = c.level === 'MUST' ? 'CheckFailed' : 'AdvisoryCheckFailed';
    this.stack = this.message;
  }
}

async function annotate(c: ReportedCheck, report: Report): Promise<void> {
  await allure.epic(c.area);
  await allure.feature(c.operation);
  await allure.story(c.title);
  await allure.severity(c.level === 'MUST' ? 'critical' : 'minor');
  await allure.tags(c.id, c.level);
  await allure.label('checkId', c.id);
  for (const id of citedClauses(c.clause)) {
    const clause = CLAUSES.find((x) => x.id === id)!;
    await allure.link(`${SPEC_PATH}#${clause.anchor}`, `interface.md ${id} ${clause.title}`);
  }
  await allure.parameter('base URL', report.target.baseUrl);
  await allure.description([
    `**${c.level}** (interface.md ${c.clause}): ${c.requirement}`,
    c.interpretation ? `\n**Interpretation:** ${c.interpretation}` : '',
    `\n**Result:** ${c.status}: ${c.message}`,
  ].join('\n'));
  const byId = new Map(report.exchanges.map((e) => [e.id, e]));
  for (const id of c.exchanges) {
    const ex = byId.get(id);
    if (!ex) continue;
    await allure.attachment(`${id} request`, ex.request, 'text/plain');
    await allure.attachment(`${id} response`, ex.response, 'text/plain');
    if (c.status === 'fail' && c.evidence.some((e) => e.exchange === id)) await allure.attachment(`${id} replay (curl)`, ex.curl, 'text/plain');
  }
  if (c.evidence.length) await allure.attachment('evidence', JSON.stringify(c.evidence, null, 2), 'application/json');
}

export function presentArea(area: Area): void {
  const report = inject('conformance');
  const checks = report.checks.filter((c) => c.area === area);
  const operations = [...new Set(checks.map((c) => c.operation))];
  for (const operation of operations) {
    describe(operation, () => {
      for (const c of checks.filter((x) => x.operation === operation)) {
        test(`${c.id} [${c.level}] ${c.title}`, async (ctx) => {
          await annotate(c, report);
          if (c.status === 'skip') ctx.skip(c.message);
          if (c.status === 'fail') throw new CheckFailed(c);
        });
      }
    });
  }
}
