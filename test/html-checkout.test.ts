// report.html says nothing of the git checkout it is built in (html.ts tells Allure's local "CI"
// there is none): not its directory's name, its branch or its remote, whose URL may hold a token.
// Built inside a checkout, Allure 3.18 ran git and put all three in the page.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance } from '../lib/engine/run.js';
import { htmlWorkPlace, writeHtmlReport } from '../lib/reporting/html.js';
import { Redactor } from '../lib/reporting/redact.js';
import { buildReport } from '../lib/reporting/report.js';

const work = mkdtempSync(join(tmpdir(), 'html-checkout-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('builds report.html inside a git checkout without its name, branch or remote', async (ctx) => {
  const checkout = join(work, 'checkout-name-7f3a');
  mkdirSync(checkout);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: checkout, stdio: 'ignore' });
  git('init', '-q', '-b', 'branch-name-5c1e');
  git('remote', 'add', 'origin', 'https://token-9d2b@example.test/owner/remote-name-1b8e.git');
  const dir = join(checkout, 'reports');
  const results = join(dir, 'allure-results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, 'r-result.json'), JSON.stringify({
    uuid: 'r', name: 'JSON-STRING', fullName: 'JSON-STRING', status: 'passed', stage: 'finished', start: 1, stop: 2, steps: [], labels: [], links: [], parameters: [], attachments: [],
  }));
  // In RAM already (the suite's temporary directory), the page is built beside the results: in the checkout.
  if (htmlWorkPlace(results) !== 'beside') ctx.skip(`${tmpdir()} is not in RAM (${statfsSync(tmpdir()).type}): the page would be built outside the checkout`);
  const run = await runConformance({ baseUrl: 'http://example.test', recorded: [], mode: 'traffic', checks: [], namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 1000, maxBodyBytes: 1 << 20, probes: false });
  const report = buildReport(run, { redactor: new Redactor({ showPersonalData: false, secrets: [] }), harness: { name: 'h', version: '0' }, targetDescription: 't', configuration: {} });
  expect(await writeHtmlReport(dir, 'title', report)).toEqual([join(dir, 'report.html')]);
  const page = readFileSync(join(dir, 'report.html'), 'latin1');
  expect(page).toContain('"repoName":""');
  for (const word of ['checkout-name-7f3a', 'branch-name-5c1e', 'token-9d2b', 'remote-name-1b8e']) expect(page).not.toContain(word);
}, 120_000);
