// The first screen of report.html, as an auditor meets it: the verdict in words, coloured by it,
// painted before any script of the page runs (Allure's page is a script application; the verdict
// is not), and still on top once the application has drawn; MUST failures, then SHOULD failures,
// then differences from the legacy, then what passed; a merge's shards named once. Allure's
// controls that mean nothing for one run (Retry, Flaky, Transition, History, Retries) and its
// pass-rate donut are hidden, and a body is shown indented with its exact bytes one click away.
// Four runs in all (a conformant, a failing, a differential and a merged one), two at a time. The
// merge (of two shards, which write only what a merge reads) is also held to one verdict in every
// output, and its shards' "covers this part only" warnings are looked for in every file it wrote.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS } from '../lib/reference/variants.js';
import { RANDOM_TOKENS, VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { launchChromium } from './helpers/browser.js';
import { LEAN, runCli, runProgram, type CliRun } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';
import { expectOneVerdict } from './helpers/verdict-words.js';
import { GENEROUS_MS } from './helpers/wait.js';

const failing = useReference({ variants: FAULTS.filter((f) => ['json-guid-dashed-at-depth', 'apostrophe-500'].includes(f.name)) });
const legacy = useReference({ variants: [RANDOM_TOKENS] });
const shifted = useReference({ variants: [RANDOM_TOKENS, VALUE_FAULTS.find((f) => f.name === 'datetime-shifted-day')!] });

const work = mkdtempSync(join(tmpdir(), 'verdict-screen-'));
const dirOf = (name: string) => join(work, name);
const summaryOf = (name: string) => JSON.parse(readFileSync(join(dirOf(name), 'summary.json'), 'utf8')) as { verdictWords: string; exitCode: number };
/** The verdict's ink (html.ts), by the exit code it calls for. */
const INK: Record<number, string> = { 0: 'rgb(26, 127, 55)', 1: 'rgb(180, 35, 24)', 2: 'rgb(154, 91, 0)' };

const runs: Record<string, CliRun> = {};
let browser: Browser;

beforeAll(async () => {
  const accounts = join(work, 'accounts.jsonl');
  writeFileSync(accounts, `${[0, 1, 2, 3].map((i) => JSON.stringify({ SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` } })).join('\n')}\n`);
  // Shards write only what a merge reads; the merge writes every report.
  const [one, two] = await Promise.all(['1/2', '2/2'].map((shard, i) =>
    runCli([...LEAN, '--base-url', failing.url, '--accounts', accounts, '--shard', shard, '--report-dir', dirOf(`shard${i + 1}`), '--quiet'])));
  expect([one!.code, two!.code]).toEqual([1, 1]);
  Object.assign(runs, { shard1: one!, shard2: two! });
  const [conformant, failed] = await Promise.all([
    runCli(['--reports', 'summary,html', '--report-dir', dirOf('conformant'), '--quiet']),
    // Generated requests reach the apostrophe fault: a SHOULD failure beside the MUST one.
    runCli(['--base-url', failing.url, '--generate', '30', '--seed', '1', '--reports', 'summary,html', '--report-dir', dirOf('failing'), '--quiet']),
  ]);
  const [differential, merged] = await Promise.all([
    runCli(['--base-url', shifted.url, '--legacy-url', legacy.url, '--reports', 'summary,html', '--report-dir', dirOf('differential'), '--quiet']),
    runProgram('cli/report', ['--merge', dirOf('shard1'), dirOf('shard2'), '--report-dir', dirOf('merged')]),
  ]);
  Object.assign(runs, { conformant: conformant!, failing: failed!, differential: differential!, merged: merged! });
  browser = await launchChromium();
}, 400_000);

afterAll(async () => { await browser?.close(); });

/** Pages a later test reads again, kept open from the first-screen test (a load of Allure's page
 *  costs about a CPU-second of Chromium's). Only the last reader of one may act on it: the failing
 *  run's scripted page is read by the first-screen test, then clicked by the test of hidden controls. */
const SHARED = new Set(['failing:false', 'failing:true', 'differential:false', 'merged:true']);
const shared = new Map<string, Page>();

/** report.html as `open` gives it, the same page for every reader of a SHARED one; `done` closes
 *  any other. */
async function view(name: string, scripts: boolean): Promise<{ page: Page; done: () => Promise<void> }> {
  const key = `${name}:${scripts}`;
  if (!SHARED.has(key)) { const page = await open(name, scripts); return { page, done: () => page.context().close() }; }
  if (!shared.has(key)) shared.set(key, await open(name, scripts));
  return { page: shared.get(key)!, done: async () => undefined };
}

/** report.html opened offline; without scripts, the page as first painted. */
async function open(name: string, scripts: boolean): Promise<Page> {
  const context = await browser.newContext({ offline: true, javaScriptEnabled: scripts, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`file://${join(dirOf(name), 'report.html')}`);
  if (scripts) await page.locator('[data-testid="tree-section"]').first().waitFor({ timeout: 60_000 });
  return page;
}

/** The verdict as painted: its words, colour, and whether it is the element at its own centre
 *  inside the first screen (nothing drawn over it). */
const PAINTED = `(() => {
  const h = document.querySelector('#conformance-verdict h1');
  if (!h) return null;
  const box = h.getBoundingClientRect();
  const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return { words: h.textContent, colour: getComputedStyle(h).color, onTop: top === h || h.contains(top), inFirstScreen: box.bottom <= innerHeight && box.top >= 0 };
})()`;

describe('report.html states the verdict in words on its first screen', () => {
  for (const [name, words] of [
    ['conformant', /^CONFORMANT$/], ['failing', /^NOT CONFORMANT$/], ['differential', /^CONFORMANT, DIFFERS FROM LEGACY \(\d+ values?\)$/], ['merged', /^NOT CONFORMANT$/],
  ] as const) {
    it(`${name}: the words summary.json and the exit code give, coloured by the verdict, before and after the page's scripts run`, async () => {
      const summary = summaryOf(name);
      expect(summary.verdictWords).toMatch(words);
      expect(runs[name]!.code).toBe(summary.exitCode);
      const shots: Buffer[] = [];
      for (const scripts of [false, true]) {
        const { page, done } = await view(name, scripts);
        expect(await page.evaluate(PAINTED), `scripts ${scripts}`).toEqual({ words: summary.verdictWords, colour: INK[summary.exitCode], onTop: true, inFirstScreen: true });
        shots.push(await page.screenshot({ path: join(dirOf(name), `first-screen${scripts ? '' : '-no-scripts'}.png`) }));
        await done();
      }
      expect(shots.every((s) => s.length > 0)).toBe(true);
    });
  }
});

describe('what follows the verdict', () => {
  it('MUST failures, then SHOULD failures, then what passed; each failure with its check id', async () => {
    const { page } = await view('failing', false);
    const banner = await page.locator('#conformance-verdict').innerText();
    const at = (s: string) => banner.indexOf(s);
    // The banner is the message when it fails: once in a full suite it did, and passed on every rerun.
    expect([at('MUST checks failed (1)'), at('JSON-GUID'), at('SHOULD checks failed (1)'), at('ROBUST-NO-5XX'), at('Passed (')].every((n, i, all) => n >= 0 && (i === 0 || n > all[i - 1]!)), banner).toBe(true);
  });

  it('a differential run lists the differing paths after the failures and before what passed', async () => {
    const { page } = await view('differential', false);
    const banner = await page.locator('#conformance-verdict').innerText();
    expect(banner).toMatch(/Differences from the legacy http\[:\]\/\/127\.0\.0\.1:\d+ \(\d+ values?\)\n/);
    expect(banner).toMatch(/birthDate/i);
    expect(banner.indexOf('Differences from the legacy')).toBeLessThan(banner.indexOf('Passed ('));
  });

  // verdict-modes.test.ts holds every mode's runs to one verdict; a merge's report.html is read here.
  it('a merged report states one verdict in every output, report.html\'s title among them, meaning the exit code', () => {
    expectOneVerdict(dirOf('merged'), runs.merged!.stdout, runs.merged!.code, 'NOT CONFORMANT');
    expect(runs.merged!.stderr).toBe('');
  });

  it('a merged report names its shards once and repeats no shard\'s "covers this part only"', async () => {
    const { page } = await view('merged', true);
    const text = await page.evaluate<string>('document.body.innerText');
    expect(text.split('Merged from 2 shards').length - 1).toBe(1);
    expect(text.match(new RegExp(dirOf('shard1').replace(/[.]/g, '\\.'), 'g'))?.length ?? 0).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(/covers this part only/);
  });

  it('hides Retry, Flaky, Transition, the pass-rate donut, and a test\'s History and Retries tabs', async () => {
    const { page, done } = await view('failing', true);
    const visible = `(ids) => ids.filter((id) => [...document.querySelectorAll('[data-testid="' + id + '"]')].some((e) => e.offsetParent !== null))`;
    expect(await page.evaluate(`(${visible})(['retry-filter', 'flaky-filter', 'transition-filter', 'severity-filter'])`)).toEqual(['severity-filter']);
    expect(await page.locator('[aria-label^="Success rate"]').isVisible()).toBe(false);
    await page.locator('[data-testid="tree-leaf-title"]', { hasText: /^JSON-GUID / }).click();
    await page.locator('[data-testid="test-result-tab-overview"]').waitFor();
    expect(await page.evaluate(`(${visible})(['test-result-tab-overview', 'test-result-tab-history', 'test-result-tab-retries'])`)).toEqual(['test-result-tab-overview']);
    await done();
  });

  it('shows a response body indented, with the exact bytes in the attachment beside it', async () => {
    const page = await open('failing', true);
    await page.locator('[data-testid="tree-leaf-title"]', { hasText: /^JSON-GUID / }).click();
    await page.locator('[data-testid="test-result-step-title"]', { hasText: 'login.post response' }).first().click();
    const headers = page.locator('[data-testid="test-result-attachment-header"]');
    await headers.filter({ hasText: 'login.post response, body indented' }).first().waitFor();
    expect(await headers.filter({ hasText: 'login.post response, exact bytes' }).count()).toBe(1);
    for (const which of ['body indented', 'exact bytes']) {
      const header = headers.filter({ hasText: `login.post response, ${which}` }).first();
      if ((await header.locator('xpath=..').locator('[data-testid="code-attachment-content"]').count()) === 0) await header.click();
    }
    // Each attachment's content renders after its click: how many of each are shown, once both are.
    const shown = async () => {
      const texts = await page.locator('[data-testid="code-attachment-content"]').allInnerTexts();
      return { indented: texts.filter((t) => t.includes('\n\n{\n  "userName": ')).length, exact: texts.filter((t) => t.includes('\n\n{"userName":')).length };
    };
    await expect.poll(shown, { timeout: GENEROUS_MS }).toEqual({ indented: 1, exact: 1 });
    await page.context().close();
  });
});

// The merge is the whole run: each shard warns that its verdict covers its part only, and the merge
// gives the merged verdict, names its shards once, and repeats none of those warnings: not on the
// console, not in summary.json, not in the Allure metadata report.html shows
// (allure-results/environment.properties) nor any other file of the allure-results it is built from.
describe('a merged report, beyond its first screen', () => {
  const WARNING = /covers this part only/;
  const shardDirs = [dirOf('shard1'), dirOf('shard2')];

  it('each shard warns that its verdict covers its part only (what the merge must not repeat)', () => {
    for (const [i, dir] of shardDirs.entries()) {
      expect(runs[`shard${i + 1}`]!.code).toBe(1);
      const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { warnings: string[] };
      expect(summary.warnings.filter((w) => WARNING.test(w))).toEqual([expect.stringMatching(new RegExp(`^shard ${i + 1}/2: `))]);
    }
  });

  it('gives the merged verdict, names its shards once, and repeats no shard\'s warning anywhere', () => {
    const [merged, out] = [runs.merged!, dirOf('merged')];
    expect([merged.code, merged.stderr]).toEqual([1, '']);
    expect(merged.stdout).toMatch(/^Verdict: NOT CONFORMANT \(/m);
    expect(merged.stdout).not.toMatch(WARNING);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { verdictWords: string; warnings: string[]; configuration: { mergedFrom: string[] } };
    expect(summary.verdictWords).toBe('NOT CONFORMANT');
    expect(summary.warnings.filter((w) => WARNING.test(w))).toEqual([]);
    expect(summary.configuration.mergedFrom).toEqual(shardDirs);
    const metadata = readFileSync(join(out, 'allure-results', 'environment.properties'), 'utf8');
    expect(metadata).not.toMatch(WARNING);
    expect(metadata.split('\n').filter((l) => l.startsWith('configuration.mergedFrom='))).toHaveLength(1);
    const results = readdirSync(join(out, 'allure-results'));
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((f) => WARNING.test(readFileSync(join(out, 'allure-results', f), 'utf8')))).toEqual([]);
  });
});
