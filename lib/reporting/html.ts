// The auditor's HTML report: Allure 3 (the `allure` CLI, pure JavaScript) turns allure-results/ into
// one self-contained file. Allure's "awesome" page always embeds a Google Analytics loader; it is
// cut out here, and a file that would still reach outside itself is refused rather than written.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { replaceFile } from './replace-file.js';

/** The allure package's own CLI script (its exports hide package.json, so walk up from its entry). */
function allureCli(): string {
  for (let dir = dirname(createRequire(import.meta.url).resolve('allure')); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'cli.js')) && existsSync(join(dir, 'package.json'))) return join(dir, 'cli.js');
  }
  throw new Error('the allure package has no cli.js');
}

/** The analytics block of the awesome template: the gtag loader and its inline configuration. */
const ANALYTICS = /<script async src="https:\/\/www\.googletagmanager\.com\/gtag\/js\?id=[^"]*"><\/script>\s*<script>[^<]*?gtag\('config'[\s\S]*?<\/script>/;
/** Any attribute that would make the page load something from elsewhere. */
const REMOTE = /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i;

const CONFIG = `export default {
  categories: [
    { name: "Non-conformances (MUST checks failed)", matchers: { statuses: ["failed"], labels: { level: "MUST" } }, expand: true },
    { name: "Advisories (SHOULD checks failed; not part of the verdict)", matchers: { statuses: ["failed"], labels: { level: "SHOULD" } } },
    { name: "Not evaluated (skipped)", matchers: { statuses: ["skipped"] } },
    { name: "Harness errors", matchers: { statuses: ["broken"] } },
  ],
  plugins: {
    awesome: {
      options: { singleFile: true, reportLanguage: "en", groupBy: ["epic", "feature", "story"] },
    },
  },
};
`;

/** Removes the analytics loader; throws if the page would still load anything from elsewhere. */
export function selfContained(html: string): string {
  const out = html.replace(ANALYTICS, '');
  const remote = REMOTE.exec(out);
  if (remote) {
    const at = out.slice(Math.max(0, remote.index - 40), remote.index + 80).replace(/\s+/g, ' ');
    throw new Error(`the generated report would load something from outside itself (…${at}…); not written`);
  }
  return out;
}

function run(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [allureCli(), ...args], { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, _out, stderr) => {
      if (error) reject(new Error(`allure generate failed: ${(stderr || error.message).trim().split('\n').pop()}`));
      else resolve();
    });
  });
}

/** Writes `<reportDir>/report.html` from `<reportDir>/allure-results`; returns its path. */
export async function writeHtmlReport(reportDir: string, title: string): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'conformance-html-'));
  try {
    writeFileSync(join(work, 'allurerc.mjs'), CONFIG);
    await run(['generate', join(reportDir, 'allure-results'), '--config', join(work, 'allurerc.mjs'), '--output', join(work, 'out'), '--report-name', title], work);
    const html = selfContained(readFileSync(join(work, 'out', 'index.html'), 'utf8'));
    return replaceFile(join(reportDir, 'report.html'), html);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
