// The clause in the report (issue 26): traceability.md and each check's Allure description quote
// the words of the clauses the check cites, read from the spec the package ships, as inert text;
// and every link from the report directory to the spec resolves there (it holds a copy).
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { CLAUSES, citedClauses, clauseText } from '../lib/contract/clauses.js';
import { markdownBlock } from '../lib/reporting/display.js';
import type { Report } from '../lib/reporting/report.js';
import { traceabilityMarkdown } from '../lib/reporting/traceability.js';
import { runCli } from './helpers/cli.js';

const SPEC = readFileSync(new URL('../docs/spec/interface.md', import.meta.url), 'utf8');

/** The Markdown renderer Allure's awesome page renders descriptions with (its own copy, as it runs). */
const markdownIt = (): { render(s: string): string } => {
  const awesome = dirname(createRequire(import.meta.url).resolve('@allurereport/plugin-awesome'));
  const MarkdownIt = createRequire(join(awesome, 'x.js'))('markdown-it') as new () => { render(s: string): string };
  return new MarkdownIt();
};

/** GitHub's heading anchors of a Markdown text (lower case, punctuation dropped, spaces as dashes). */
const anchorsOf = (md: string): string[] => md.split('\n').filter((l) => /^#{1,6} /.test(l))
  .map((l) => l.replace(/^#+ /, '').toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-'));

describe('clauseText', () => {
  it('is a clause\'s own words: a section stops at its first subsection, a subsection at the next heading', () => {
    expect(clauseText('2')).toMatch(/^Types: string; integer; boolean; datetime; guid; array of X; object\. Datetime in JSON/);
    expect(clauseText('2')).not.toContain('JSON field names');
    expect(clauseText('4.2')).toMatch(/^\| Item \| Shape \|/);
    expect(clauseText('4.2')).toMatch(/A JSON route for this operation: not shown\.$/);
    expect(clauseText('4.2')).not.toContain('ConfirmEmailRequest');
    expect(clauseText('9')).toMatch(/^Versioning: not shown\. No version number or version selector is given\. .*\(`\.json`, `\?format=json`, `\.soap11`, `\?format=soap11`\)\.$/);
  });
  it('is found for every clause, and every line of the spec below a heading is in exactly one clause', () => {
    const quoted = CLAUSES.map((c) => clauseText(c.id)).join('\n');
    const body = SPEC.split('\n').slice(SPEC.split('\n').findIndex((l) => l.startsWith('## 1.')))
      .filter((l) => l.trim() && !/^#{1,6} /.test(l));
    expect(quoted.split('\n').filter((l) => l.trim())).toEqual(body);
  });
});

describe('markdownBlock', () => {
  it('keeps spec text inert: tables, links, HTML and backtick runs render as the text itself, in one code block', () => {
    const text = '| a | b |\n|---|---|\n| `x` | <script>alert(1)</script> |\n[link](http://example.com/)\n````\n<b>after a fence</b>\n\u001b[2J';
    const html = markdownIt().render(markdownBlock(text));
    expect(html.match(/<pre>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<(table|a|script)\b/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('````\n&lt;b&gt;after a fence&lt;/b&gt;');
    expect(html).toContain('\\x1b[2J');
  });
});

describe('traceability.md', () => {
  const report = {
    target: { baseUrl: 'https://svc.example.com' }, verdict: 'conformant', startedAt: 's', finishedAt: 'f',
    harness: { version: '1' }, catalogueHash: 'h',
    checks: CATALOGUE.map((c) => ({ id: c.id, clause: c.clause, level: c.level, status: 'pass' })),
  } as unknown as Report;
  const md = traceabilityMarkdown(report);
  const html = markdownIt().render(md);

  it('quotes every clause in the spec\'s words, each in a code block of its own', () => {
    for (const c of CLAUSES) {
      expect(md, c.id).toContain(`### ${c.id} ${c.title}\n\n[interface.md ${c.id}](interface.md#${c.anchor})\n\n${markdownBlock(clauseText(c.id))}\n`);
    }
    expect(html.match(/<pre>/g)).toHaveLength(CLAUSES.length);
    expect(html).not.toMatch(/<table>[\s\S]*<table>/); // the spec's tables stay text: only the traceability table renders
  });
  it('links only to the copy of the spec beside it, at headings that copy has', () => {
    const links = [...md.matchAll(/\]\(([^)]*)\)/g)].map((m) => m[1]!);
    expect(links.length).toBe(CLAUSES.length + 1);
    const anchors = anchorsOf(SPEC);
    for (const link of links) {
      const [file, anchor] = link.split('#');
      expect(file).toBe('interface.md');
      if (anchor !== undefined) expect(anchors, link).toContain(anchor);
    }
  });
});

describe('a run\'s report directory', () => {
  it('holds interface.md as shipped; every relative link of traceability.md resolves there; each check\'s description quotes its clauses and links to that copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-clauses-'));
    const r = await runCli(['--report-dir', dir, '--reports', 'traceability,allure']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(readFileSync(join(dir, 'interface.md'), 'utf8')).toBe(SPEC);
    const md = readFileSync(join(dir, 'traceability.md'), 'utf8');
    for (const [, link] of md.matchAll(/\]\(([^)#]*)[^)]*\)/g)) expect(existsSync(join(dir, link!)), link).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).files['interface.md']).toMatch(/^[0-9a-f]{64}$/);

    const results = readdirSync(join(dir, 'allure-results')).filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, 'allure-results', f), 'utf8')) as { labels: { name: string; value: string }[]; description?: string; links: { url: string }[] });
    const byCheck = new Map(results.map((t) => [t.labels.find((l) => l.name === 'check')?.value, t]));
    expect(byCheck.size).toBeGreaterThanOrEqual(CATALOGUE.filter((c) => !c.sources).length);
    for (const c of CATALOGUE) {
      const t = byCheck.get(c.id);
      if (!t) continue; // a check this run had no source for
      const cited = CLAUSES.filter((x) => citedClauses(c.clause).includes(x.id));
      expect(cited.length, c.id).toBeGreaterThan(0);
      for (const x of cited) {
        expect(t.description, `${c.id} ${x.id}`).toContain(`**interface.md ${x.id} ${x.title}** ([the spec](interface.md#${x.anchor})), in the spec's words:\n\n${markdownBlock(clauseText(x.id))}`);
        expect(t.links.map((l) => l.url), c.id).toContain(`interface.md#${x.anchor}`);
      }
    }
  });
});
