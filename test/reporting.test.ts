// The auditor-facing documents on their own: traceability covers every clause of the spec (the
// "not shown" ones as not testable), and the HTML is refused if it would load anything remotely.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { CLAUSES, citedClauses } from '../lib/contract/clauses.js';
import { selfContained } from '../lib/reporting/html.js';
import type { Report } from '../lib/reporting/report.js';
import { traceabilityMarkdown } from '../lib/reporting/traceability.js';

const headings = readFileSync(new URL('../docs/spec/interface.md', import.meta.url), 'utf8')
  .split('\n').filter((l) => /^#{2,3} \d/.test(l)).map((l) => l.replace(/^#+ /, ''));

describe('clauses', () => {
  it('are exactly the numbered headings of interface.md, with their anchors', () => {
    expect(CLAUSES.map((c) => `${c.id}${c.id.includes('.') ? '' : '.'} ${c.title}`)).toEqual(headings);
  });
  it('every check cites at least one clause', () => {
    expect(CATALOGUE.filter((c) => !citedClauses(c.clause).length).map((c) => c.id)).toEqual([]);
  });
});

describe('traceability.md', () => {
  const report = {
    target: { baseUrl: 'https://svc.example.com' }, verdict: 'non-conformant', startedAt: 's', finishedAt: 'f',
    harness: { version: '1' }, catalogueHash: 'h',
    checks: CATALOGUE.map((c) => ({ id: c.id, clause: c.clause, level: c.level, status: c.id === 'SOAP-ORDER' ? 'fail' : 'pass' })),
  } as unknown as Report;
  const md = traceabilityMarkdown(report);
  const row = (id: string) => md.split('\n').find((l) => l.startsWith(`| ${id} |`)) ?? '';

  it('has one row per clause', () => {
    expect(CLAUSES.every((c) => row(c.id))).toBe(true);
  });
  it('lists the clauses the spec leaves "not shown" as not testable', () => {
    for (const id of ['3', '5', '6', '7', '8', '9']) expect(row(id)).toContain('not testable: the spec says "not shown"');
  });
  it('traces a failing check to its clause, which is then not met', () => {
    expect(row('2.1')).toContain('| NOT MET |');
    expect(row('2.1')).toContain('`SOAP-ORDER` MUST FAILED');
    expect(row('4.1')).toContain('| met |');
  });
});

describe('the self-contained HTML', () => {
  const analytics = `<head></head><body><div id="app"></div>
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-LNDJ3J7WT0"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag(){dataLayer.push(arguments);}
        gtag('js', new Date());
        gtag('config', 'G-LNDJ3J7WT0', { "report": "awesome" });
    </script>
    <script async>window.allureReportData = {};</script></body>`;

  it('loses Allure\'s analytics block and nothing else', () => {
    const out = selfContained(analytics);
    expect(out).not.toContain('googletagmanager');
    expect(out).not.toContain('gtag');
    expect(out).toContain('window.allureReportData');
  });
  it('is refused when anything else would be fetched from outside', () => {
    expect(() => selfContained('<link href="https://fonts.example.com/x.css">')).toThrow(/would load something from outside itself/);
    expect(() => selfContained('<img src=//cdn.example.com/a.png>')).toThrow(/outside itself/);
  });
});
