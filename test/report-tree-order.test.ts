// report.html's tree, as an auditor opens it: MUST failures first, then SHOULD failures, then the
// differences from the legacy, then what passed, then what was not evaluated (issue 26, "The HTML an
// auditor opens"). Allure 3 orders its tree by the results' start times (suites/tree-order.ts), so
// the order is asserted in the allure-results the HTML is built from, and on the page as drawn.
// One run of a candidate that fails a MUST and a SHOULD check and differs from its legacy, asked for
// `--reports html` alone: it writes allure-results too, and says so once (a choice, not an error).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { RANDOM_TOKENS, VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { launchChromium } from './helpers/browser.js';
import { runCli, type CliRun } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';

const legacy = useReference({ variants: [RANDOM_TOKENS] });
// OPTIONS refused: ROUTE-LOGIN-OPTIONS (MUST) and OPTIONS-ALLOWS-POST (SHOULD) fail; birthDate a day off: a difference.
const candidate = useReference({ variants: [RANDOM_TOKENS, VALUE_FAULTS.find((f) => f.name === 'datetime-shifted-day')!, FAULTS.find((f) => f.name === 'login-options-refused')!] });

const ORDER = ['MUST failed', 'SHOULD failed', 'Differs from the legacy', 'Passed', 'Not evaluated'];

const dir = mkdtempSync(join(tmpdir(), 'tree-order-'));
let run: CliRun;
let browser: Browser;

interface Result { name: string; start: number; labels: { name: string; value: string }[] }
const label = (r: Result, name: string) => r.labels.find((l) => l.name === name)?.value;

beforeAll(async () => {
  run = await runCli(['--base-url', candidate.url, '--legacy-url', legacy.url, '--reports', 'html', '--report-dir', dir, '--quiet']);
  browser = await launchChromium();
}, 400_000);

afterAll(async () => { await browser?.close(); });

describe('--reports html without allure', () => {
  it('writes allure-results and report.html, says so in one line on stderr before the run, and exits with the verdict', () => {
    expect(run.stderr).toBe('note: --reports html writes allure too (report.html is built from the Allure results)\n');
    expect(readdirSync(dir).sort()).toEqual(['allure-results', 'interface.md', 'manifest.json', 'report.html']);
    expect(run.stdout).toMatch(/^Verdict: NOT CONFORMANT, DIFFERS FROM LEGACY \(\d+ values?\)/m);
    expect(run.code).toBe(1);
  });
});

describe('the tree of report.html', () => {
  it('in allure-results: MUST failures start first, then SHOULD failures, differences, passed, not evaluated; each outcome once, in the catalogue\'s order within', () => {
    const results = readdirSync(join(dir, 'allure-results')).filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, 'allure-results', f), 'utf8')) as Result)
      .sort((a, b) => a.start - b.start);
    const outcomes = results.map((r) => label(r, 'outcome'));
    expect(outcomes.every((o) => o !== undefined)).toBe(true);
    expect(outcomes.filter((o, i) => o !== outcomes[i - 1])).toEqual(ORDER);
    expect(new Set(results.map((r) => r.start)).size).toBe(results.length);
    expect(results.slice(0, 2).map((r) => [label(r, 'check'), label(r, 'level')])).toEqual([['ROUTE-LOGIN-OPTIONS', 'MUST'], ['OPTIONS-ALLOWS-POST', 'SHOULD']]);
    expect(results.filter((r) => label(r, 'outcome') === 'Differs from the legacy').every((r) => label(r, 'area') === 'Differential')).toBe(true);
    // The presentation's own label is dropped once it has set the start.
    expect(results.flatMap((r) => r.labels.map((l) => l.name)).filter((n) => n === 'placedAt')).toEqual([]);
  });

  it('on the page: the outcome sections drawn top to bottom in that order, each failing test under its own outcome', async () => {
    const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 2000 } });
    const page = await context.newPage();
    await page.goto(`file://${join(dir, 'report.html')}`);
    await page.locator('[data-testid="tree-section"]').first().waitFor({ timeout: 60_000 });
    // The sections and tests as painted: their titles and where they are on the screen.
    const drawn = await page.evaluate<{ title: string; top: number; leaf: boolean }[]>(`[...document.querySelectorAll('[data-testid="tree-section-title"], [data-testid="tree-leaf-title"]')]
      .map((t) => ({ title: t.textContent.trim(), top: t.getBoundingClientRect().top, leaf: t.matches('[data-testid="tree-leaf-title"]') }))`);
    await page.screenshot({ path: join(dir, 'tree.png'), fullPage: true });
    const outcomes = drawn.filter((d) => !d.leaf && ORDER.includes(d.title));
    expect(outcomes.map((d) => d.title)).toEqual(ORDER);
    expect(outcomes.every((d, i) => i === 0 || d.top > outcomes[i - 1]!.top)).toBe(true);
    // The failures' sections are open: each failing test is drawn under its outcome, above the next one.
    const leaves = drawn.filter((d) => d.leaf);
    const under = (outcome: string) => {
      const i = ORDER.indexOf(outcome);
      return leaves.filter((l) => l.top > outcomes[i]!.top && l.top < outcomes[i + 1]!.top).map((l) => l.title);
    };
    expect(under('MUST failed')).toEqual([expect.stringMatching(/^ROUTE-LOGIN-OPTIONS /)]);
    expect(under('SHOULD failed')).toEqual([expect.stringMatching(/^OPTIONS-ALLOWS-POST /)]);
    expect(under('Differs from the legacy')).toEqual(expect.arrayContaining([expect.stringMatching(/birthDate differs from the legacy$/)]));
    expect(under('Differs from the legacy').every((t) => t.endsWith('differs from the legacy'))).toBe(true);
    await context.close();
  });
});
