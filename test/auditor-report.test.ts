// The auditor's report, as an auditor meets it: report.html opened in headless Chromium with the
// network off shows every check with its status, each failure with its evidence and replay command,
// the traceability and the manifest, and makes no request outside itself. Each failure's curl
// command, run for real, reproduces the exchange byte for byte.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleRecord } from '../lib/contract/examples.js';
import { JSON_OPERATIONS } from '../lib/contract/operations.js';
import { setMember } from '../lib/reference/edit-json.js';
import type { Variant } from '../lib/reference/profile.js';
import { FAULTS } from '../lib/reference/variants.js';
import { inertUrls } from '../lib/reporting/display.js';
import { launchChromium } from './helpers/browser.js';
import { runCli } from './helpers/cli.js';
import { useReference } from './helpers/reference.js';
import { GENEROUS_MS } from './helpers/wait.js';

/** Member names that would act on a terminal or disguise text, and values that would be markup or a
 *  link if a page rendered them as such: each must reach the page as inert, escaped text. */
const HOSTILE_NAME = '\u001b[2J\u001b]52;c;SGk=\u0007\rVerdict: CONFORMANT \u202eevil';
const hostileValues: Variant = {
  name: 'hostile-values', description: 'member names with controls and bidi overrides; markup and URLs in values',
  editJson: (r) => setMember(setMember(r, ['see http://evil.example/first [x](http://evil.example/md)'], () => ({ t: 'number', raw: '1' })),
    [HOSTILE_NAME], () => ({ t: 'string', value: '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script> http://evil.example/v' })),
};
const faulty = useReference({ variants: [...FAULTS.filter((f) => ['json-guid-dashed-at-depth', 'two-members-swapped', 'callback-renamed'].includes(f.name)), hostileValues] });

interface Summary {
  verdict: string;
  target: { baseUrl: string };
  checks: { id: string; level: 'MUST' | 'SHOULD'; status: 'passed' | 'failed' | 'skipped'; message: string; replay?: string; evidence: { exchange: string }[] }[];
  exchanges: { id: string; status?: number; responseSha256?: string }[];
}

let dir: string;
let summary: Summary;
let browser: Browser;
let page: Page;
const outside: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'auditor-'));
  const r = await runCli(['--base-url', faulty.url, '--report-dir', dir]);
  expect(r.code).toBe(1);
  summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
  browser = await launchChromium();
  const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 1000 } });
  // Everything the page asks for is recorded; nothing but the file itself is let through.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (/^(data|blob):/.test(url) || url === `file://${join(dir, 'report.html')}`) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page = await context.newPage();
  await open();
}, 90_000);

let loaded = false;
/** (Re)opens the report at its front page: opening a test replaces the tree with its page. The page
 *  is loaded once; Allure routes by the location's fragment (#<test id>), so clearing it is the way
 *  back, within the page, not another load of its 10 MB (about a CPU-second of Chromium's each). */
async function open(): Promise<void> {
  if (loaded) await page.evaluate("location.hash = ''");
  else {
    await page.goto(`file://${join(dir, 'report.html')}`);
    loaded = true;
  }
  await page.locator('[data-testid="tree-leaf"]').first().waitFor();
}

afterAll(async () => { await browser?.close(); });

// Run inside the page (plain JavaScript: the project is not compiled against DOM types).
/** Clicks open each closed section of the tree not clicked yet (a section renders its children only
 *  when open; one clicked twice would close again); whether none is closed. Nested sections appear as
 *  their parents open, so it is polled until it holds. */
const ALL_SECTIONS_OPEN = `(() => {
  const closed = [...document.querySelectorAll('[data-testid="tree-section"]')].filter((s) => (s.parentElement?.childElementCount ?? 0) < 2);
  for (const s of closed.filter((s) => !s.dataset.clicked)) { s.dataset.clicked = '1'; s.querySelector('[data-testid="tree-arrow"]')?.click(); }
  return closed.length === 0;
})()`;
/** [check id, status] of every test shown in the tree. */
const SHOWN_TESTS = `[...document.querySelectorAll('[data-testid="tree-leaf"]')].map((l) => [
  l.querySelector('[data-testid="tree-leaf-title"]')?.textContent?.split(' ')[0] ?? '',
  l.querySelector('[data-testid^="tree-leaf-status-"]')?.getAttribute('data-testid')?.replace('tree-leaf-status-', '') ?? '',
])`;
const PAGE_TEXT = 'document.body.innerText';

async function expandAll(): Promise<void> {
  await page.waitForFunction(ALL_SECTIONS_OPEN, undefined, { polling: 50, timeout: GENEROUS_MS });
}

describe('the HTML report in a browser, offline', () => {
  it('writes the single-file report next to traceability.md, summary.json and junit.xml', () => {
    for (const f of ['report.html', 'traceability.md', 'summary.json', 'junit.xml']) expect(existsSync(join(dir, f)), f).toBe(true);
  });

  it('is titled with the target, the verdict and the date', async () => {
    expect(await page.title()).toMatch(new RegExp(`^Conformance of ${faulty.url.replace(/[.]/g, '\\.')}: NOT CONFORMANT \\(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC\\)$`));
  });

  it('shows every check ID once, with the status of the run', async () => {
    await expandAll();
    const shown = await page.evaluate<string[][]>(SHOWN_TESTS);
    const expected = summary.checks.map((c) => [c.id, c.status]); // summary.json says it as Allure does
    expect([...shown].sort()).toEqual([...expected].sort());
    expect(summary.checks.filter((c) => c.status === 'failed').map((c) => c.id).sort()).toEqual(['JSON-GUID', 'JSON-UNKNOWN-MEMBERS', 'JSONP-CALLBACK', 'SOAP-ORDER']);
  });

  it('shows each failure with its message, evidence and curl command', async () => {
    for (const c of summary.checks.filter((x) => x.status === 'failed')) {
      await open(); // failures are shown expanded on the front page
      await page.locator('[data-testid="tree-leaf-title"]', { hasText: new RegExp(`^${c.id} `) }).click();
      const attachment = `${c.evidence[0]!.exchange} replay (curl)`;
      await page.getByText(`replay: the attachment "${attachment}"`).first().waitFor();
      await page.locator('[data-testid="test-result-attachment-header"]', { hasText: attachment }).first().click();
      await page.locator('[data-testid="code-attachment-content"]').first().waitFor();
      const text = await page.evaluate<string>(PAGE_TEXT);
      expect(text, c.id).toContain(inertUrls(c.message));
      expect(text, c.id).toContain(c.replay);
      expect(text, c.id).toContain(c.level === 'MUST' ? 'Non-conformances (MUST checks failed)' : 'Advisories (SHOULD checks failed');
    }
  });

  it('carries the traceability and the run manifest as run-level attachments', async () => {
    await open();
    await page.getByText(/^Global Attachments/).first().click();
    await page.getByText('traceability.md').first().waitFor();
    const text = await page.evaluate<string>(PAGE_TEXT);
    expect(text).toContain('traceability.md');
    expect(text).toContain('run manifest');
  });

  it('shows hostile values as inert text: controls and bidi escaped, no markup run, no target URL a link', async () => {
    await open();
    await page.locator('[data-testid="tree-leaf-title"]', { hasText: /^JSON-UNKNOWN-MEMBERS / }).click();
    await page.getByText('replay: the attachment').first().waitFor();
    const text = async () => [await page.evaluate<string>(PAGE_TEXT), ...await Promise.all(page.frames().map((f) => f.evaluate<string>('document.body ? document.body.innerText : ""')))].join('\n');
    // Member names are quoted as JSON strings in findings, so controls show as \uXXXX escapes; the
    // description that quotes them renders in its own frame, after the page.
    await expect.poll(text, { timeout: GENEROUS_MS }).toContain('\\u001b[2J\\u001b]52;c;SGk=\\u0007\\rVerdict: CONFORMANT \\u202eevil');
    const shown = await text();
    expect(shown).toContain('see http[:]//evil.example/first [x](http[:]//evil.example/md)');
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    const anchors = await Promise.all(page.frames().map((f) => f.evaluate<string[]>('[...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"))')));
    expect(anchors.flat().filter((h) => /evil\.example|127\.0\.0\.1/.test(h))).toEqual([]);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('made no request outside itself', () => {
    expect(outside).toEqual([]);
  });
});

/** The curl command with its markers filled in, as an auditor would fill them: the run sent the sample
 *  request values, and the reference answers each account with its own record, so the values matter. */
const filledIn = (curl: string): string => {
  let out = curl;
  for (const op of JSON_OPERATIONS) {
    for (const [name, value] of Object.entries(exampleRecord(op.request))) {
      out = out.replace(new RegExp(`"${name}":"«[^»]*»"`), `"${name}":${JSON.stringify(value)}`);
    }
  }
  return out;
};

describe('replaying a failure', () => {
  it('each failed check\'s curl command, its markers filled in, reproduces its exchange byte for byte', async () => {
    const failed = summary.checks.filter((c) => c.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const c of failed) {
      const recorded = summary.exchanges.find((e) => e.id === c.evidence[0]!.exchange)!;
      expect(c.replay).not.toMatch(/«/); // the harness's own sample values are shown as sent (issue 26)
      const out = await new Promise<Buffer>((resolve, reject) => execFile('sh', ['-c', filledIn(c.replay!)], { encoding: 'buffer', timeout: 60_000 }, (e, o) => (e ? reject(e) : resolve(o))));
      const split = out.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(out.subarray(0, split).toString())?.[1]);
      expect([c.id, status]).toEqual([c.id, recorded.status]);
      expect([c.id, createHash('sha256').update(out.subarray(split + 4)).digest('hex')]).toEqual([c.id, recorded.responseSha256]);
    }
  });
});
