// The auditor's HTML report: Allure 3 (the `allure` CLI, pure JavaScript) turns allure-results/ into
// one self-contained file. Allure's "awesome" page always embeds a Google Analytics loader; it is
// cut out here, and a file that would still reach outside itself is refused rather than written.
// The Allure CLI is an optional peer dependency (158 packages, 39 MB of an install): without it
// report.html is left out, said in one line, and every other report is written.
import { copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { childAhead, type ChildAhead } from '../child-ahead.js';
import { displayLine, inertUrls } from './display.js';
import { prettyMessage } from './pretty-body.js';
import { inRam, ramDir, ramHasRoomFor } from './ram-place.js';
import { HTML_WORK, releaseWorkDir, sharedWorkDir, workDir } from './work-dirs.js';
import { replaceFile, replaceFileInPieces } from './replace-file.js';
import type { Report } from './report.js';
import { exitCodeOf, verdictWords } from './verdict.js';

/** The version of the Allure CLI this report was made with (package.json pins it as a dev and optional peer dependency). */
export const ALLURE_VERSION = '3.18.0';
/** Said on stderr when the Allure CLI is not installed. */
export const ALLURE_MISSING = `report.html not written: it is made by the Allure 3 CLI, an optional dependency not installed here (npm install --save-dev allure@${ALLURE_VERSION} adds it); every other report is written`;

/** The allure package's own CLI script (its exports hide package.json, so walk up from its entry),
 *  or undefined when the package is not installed. */
function allureCli(): string | undefined {
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('allure');
  } catch {
    return undefined;
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
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
      // The tree: by outcome (MUST failed, SHOULD failed, differs, passed, not evaluated: suites/tree-order.ts
      // gives each result its outcome and a start in that order, which "order,asc" sorts by), then area,
      // operation and check.
      options: { singleFile: true, reportLanguage: "en", groupBy: ["outcome", "epic", "feature", "story"], defaultSortBy: "order,asc" },
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

/** Two changes to how Allure 3.18 works, none to what it writes (each left out when the module is not
 *  shaped as expected):
 *  - A result file or attachment (a few KB; up to ALLURE_READ_AT_ONCE) is read whole, synchronously,
 *    as Allure's own in-memory result file does, not streamed: the page reads some 1 400 of them one
 *    after another, and each stream's open, reads and close waited on libuv's threads (about 0.35 s
 *    of a generation idle on a quiet machine, 0.5 s on a loaded one).
 *  - Its local "CI" is told there is no git checkout, as it finds when it runs in /dev/shm, where the
 *    page is built when there is room: it ran `git` five times (some 0.1 s) to learn the checkout's
 *    name, branch and remote, which the page would carry had it been built inside a checkout (the
 *    remote URL may hold a token). Nothing of the checkout belongs in a conformance report. */
const ALLURE_READ_AT_ONCE = 8 * 1024 * 1024;
const ALLURE_PATCHES = `
const readerApi = await load(() => core.resolve('@allurereport/reader-api'));
const resultFile = readerApi?.PathResultFile?.prototype;
if (typeof resultFile?.getContent === 'function') {
  const streamed = resultFile.getContent;
  resultFile.getContent = function () {
    try {
      const stat = statSync(this.path, { throwIfNoEntry: false });
      if (!stat) return undefined; // as Allure's: no file, no content
      if (stat.isFile() && stat.size <= ${ALLURE_READ_AT_ONCE}) return Readable.from(readFileSync(this.path));
    } catch { /* Allure's stream meets the same error */ }
    return streamed.call(this);
  };
}
const local = (await load(() => join(dirname(core.resolve('@allurereport/ci')), 'detectors', 'local.js')))?.local;
if (local && Object.getOwnPropertyDescriptor(local, 'repoName')?.get) {
  for (const [name, value] of [['repoName', ''], ['jobRunBranch', ''], ['provider', undefined], ['repository', undefined]]) {
    Object.defineProperty(local, name, { get: () => value, enumerable: true, configurable: true });
  }
}
`;

/** The Allure CLI in a process started before its input exists: it loads its modules (about 1 s of
 *  CPU, most of a generation's start) while the presentation writes the results, then waits for one
 *  line on stdin, {args, cwd}, and runs as `allure ...args` there. An empty stdin (the run needed
 *  no HTML after all, or ended) ends it. Loading ahead is only a head start: if it fails, the CLI
 *  loads the same modules when it runs. */
const AHEAD = `
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
const cli = process.argv[1];
const load = async (resolve) => { try { return await import(pathToFileURL(resolve()).href); } catch { /* loaded when it runs */ } };
const from = createRequire(cli);
await load(() => from.resolve('./dist/commands/index.js'));
const core = createRequire(from.resolve('@allurereport/core'));
await load(() => core.resolve('@allurereport/plugin-awesome'));
${ALLURE_PATCHES}
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
if (input) {
  const { args, cwd } = JSON.parse(input);
  process.chdir(cwd);
  process.argv.splice(1, process.argv.length, cli, ...args); // in place: the CLI reads node:process's argv export
  await import(pathToFileURL(cli).href);
}
`;

const allureChild = (cli: string): ChildAhead => childAhead(['--input-type=module', '-e', AHEAD, cli], false);
let ahead: ChildAhead | undefined;

/** Starts the Allure CLI loading now, for a writeHtmlReport to come (write-reports.ts calls it as the
 *  reports begin, so it loads while the presentation runs); its process id. */
export function loadAllureAhead(): number | undefined {
  const cli = ahead ? undefined : allureCli();
  if (cli) ahead = allureChild(cli);
  return ahead?.pid;
}

/** The regular files of `from` in `to` (made here): as hard links, each copied where it cannot be
 *  linked (another file system), or all copied when `copy`. cpSync of a run's 1 000 result files to
 *  the same disk cost 0.7 s of CPU and 3 s of wall time, linking 0.03 s. Whatever is written in `to`
 *  afterwards must replace a file, never write into it (prettyAttachments uses replaceFile), or it
 *  would change the report's own copy. */
function linkTree(from: string, to: string, copy = false): void {
  mkdirSync(to);
  for (const name of readdirSync(from)) {
    const [source, target] = [join(from, name), join(to, name)];
    const stat = lstatSync(source);
    if (stat.isDirectory()) linkTree(source, target, copy);
    else if (stat.isFile()) {
      if (copy) copyFileSync(source, target);
      else {
        try {
          linkSync(source, target);
        } catch {
          copyFileSync(source, target);
        }
      }
    }
  }
}

/** Bytes of the regular files under `dir`. */
function treeBytes(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    const stat = lstatSync(join(dir, name));
    bytes += stat.isDirectory() ? treeBytes(join(dir, name)) : stat.isFile() ? stat.size : 0;
  }
  return bytes;
}

/** Where report.html is built from `results`: copied into RAM, or linked beside them (the report
 *  directory is in RAM already, or there is no RAM file system with room). */
export function htmlWorkPlace(results: string): 'ram' | 'beside' {
  try {
    return !inRam(results) && ramHasRoomFor(treeBytes(results)) ? 'ram' : 'beside';
  } catch {
    return 'beside'; // the results cannot be measured
  }
}

/** Characters of messages and their indented bodies prettyAttachments keeps to indent each once. */
const INDENTED_KEPT = 4 * 1024 * 1024;

/** A shown message attachment (`<exchange> request`, `<exchange> response`): its body re-indented
 *  is put before it, and it keeps the bytes as received. Only the copy the HTML is built from changes. */
function prettyAttachments(results: string): void {
  type Attachment = { name: string; source: string; type?: string };
  type Step = { attachments?: Attachment[]; steps?: Step[] };
  // A run's messages are attached to every check that judged them (the reference's: 30 texts in 698
  // attachments): each is indented once, while what is kept stays small (a flood's texts are many).
  const indented = new Map<string, string | undefined>();
  let kept = 0;
  const indent = (message: string) => {
    if (indented.has(message)) return indented.get(message);
    const pretty = prettyMessage(message);
    if ((kept += message.length + (pretty?.length ?? 0)) <= INDENTED_KEPT) indented.set(message, pretty);
    return pretty;
  };
  const walk = (s: Step): boolean => {
    let changed = false;
    const out: Attachment[] = [];
    for (const a of s.attachments ?? []) {
      const pretty = /\b(?:request|response)$/.test(a.name) && a.type === 'text/plain' ? indent(readFileSync(join(results, a.source), 'utf8')) : undefined;
      if (pretty !== undefined) {
        const source = a.source.replace(/-attachment(\.\w+)?$/, '-pretty-attachment.txt');
        replaceFile(join(results, source), pretty);
        out.push({ name: `${a.name}, body indented`, source, type: 'text/plain' }, { ...a, name: `${a.name}, exact bytes` });
        changed = true;
      } else out.push(a);
    }
    if (changed) s.attachments = out;
    for (const child of s.steps ?? []) changed = walk(child) || changed;
    return changed;
  };
  for (const file of readdirSync(results).filter((f) => f.endsWith('-result.json'))) {
    try {
      const result = JSON.parse(readFileSync(join(results, file), 'utf8')) as Step;
      if (walk(result)) replaceFile(join(results, file), JSON.stringify(result));
    } catch {
      // A result this cannot read keeps its attachments as they are: the indented copy is a convenience.
    }
  }
}

/** Text the banner shows: escaped for HTML, controls shown escaped, URLs inert, and no `=` (so no
 *  text can read as an attribute to the self-containment check). */
const text = (s: string): string => inertUrls(displayLine(s))
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/=/g, '&#61;');

const COLOURS = { 0: ['#e8f6ec', '#1a7f37'], 1: ['#fdecea', '#b42318'], 2: ['#fff4e0', '#9a5b00'] } as const;

/** Above Allure's page, in the file itself (seen on first paint, before the page's script runs): the
 *  verdict in words, coloured by it; MUST failures, then SHOULD failures, then the differences from
 *  the legacy, then what passed; and for a merge, its shards once. */
export function verdictBanner(report: Report): string {
  const [background, ink] = COLOURS[exitCodeOf(report)];
  const failed = (level: string) => report.checks.filter((c) => c.level === level && c.status === 'fail');
  const item = (c: Report['checks'][number]) => `<li><b>${text(c.id)}</b> ${text(c.title)}: ${text(c.message)}</li>`;
  const section = (title: string, items: string[]) => (items.length ? `<h3>${title}</h3><ul>${items.join('')}</ul>` : '');
  const d = report.differential;
  const merged = report.configuration.mergedFrom;
  const shards = Array.isArray(merged) ? merged.map(String) : [];
  const passed = report.checks.filter((c) => c.status === 'pass');
  const skipped = report.checks.filter((c) => c.status === 'skip');
  return [
    `<header id="conformance-verdict" data-exit-code="${exitCodeOf(report)}" style="position:relative;z-index:2147483647;margin:0;padding:16px 24px;background:${background};border-bottom:4px solid ${ink};font:14px/1.45 system-ui,sans-serif;color:#1d2939">`,
    `<h1 style="margin:0 0 4px;font-size:28px;color:${ink}">${text(verdictWords(report))}</h1>`,
    `<p style="margin:0">${text(report.target.baseUrl)}, ${text(report.startedAt.slice(0, 16).replace('T', ' '))} UTC. MUST ${report.counts.MUST.passed} passed, ${report.counts.MUST.failed} failed, ${report.counts.MUST.skipped} not evaluated; SHOULD ${report.counts.SHOULD.passed} passed, ${report.counts.SHOULD.failed} failed${report.gate === 'should' ? `, ${report.counts.SHOULD.skipped} not evaluated (the run gates on SHOULD)` : ' (advisory)'}.</p>`,
    shards.length ? `<p style="margin:4px 0 0">Merged from ${shards.length} shards: ${shards.map(text).join(', ')}.</p>` : '',
    section(`MUST checks failed (${failed('MUST').length})`, failed('MUST').map(item)),
    section(`SHOULD checks failed (${failed('SHOULD').length})`, failed('SHOULD').map(item)),
    d && d.differences ? section(`Differences from the legacy ${text(d.legacy.baseUrl)} (${d.differences} values)`, d.paths.map((p) => `<li><b>${text(p.operation)}</b> ${text(p.path)}: ${p.differing} of ${p.compared} compared</li>`)) : '',
    skipped.length ? `<p style="margin:4px 0 0">Not evaluated (${skipped.length}): ${skipped.map((c) => text(c.id)).join(', ')}</p>` : '',
    `<details style="margin:4px 0 0"><summary>Passed (${passed.length})</summary>${passed.map((c) => text(c.id)).join(', ')}</details>`,
    '</header>',
  ].join('');
}

/** Allure's controls that mean nothing for one run of checks (each check runs once: no retries,
 *  flakiness, transitions or history), and its pass-rate donut, which is not the verdict. */
const HIDDEN = ['retry-filter', 'flaky-filter', 'transition-filter', 'test-result-tab-history', 'test-result-tab-retries']
  .map((id) => `[data-testid="${id}"]`).concat('article:has([aria-label^="Success rate"])').join(',');
// Allure's loader covers the whole window until its script has drawn the page: in the flow below
// the verdict instead, so the verdict is what the first paint shows.
const STYLE = `<style id="conformance-style">${HIDDEN}{display:none!important}.allure-app-loader{position:static!important;min-height:40vh}#conformance-verdict h3{margin:10px 0 2px;font-size:15px}#conformance-verdict ul{margin:0;padding-left:20px}</style>`;

/** The page with the verdict banner first in its body and Allure's meaningless controls hidden. */
export function withVerdict(html: string, report: Report): string {
  return verdictPieces(html, report).map(([text]) => text).join('');
}

/** The same page as pieces: the page's own text in `encoding` (as it was read), the style and the
 *  banner in UTF-8. */
function verdictPieces(html: string, report: Report, encoding: BufferEncoding = 'utf8'): (readonly [string, BufferEncoding])[] {
  const head = html.indexOf('</head>');
  const body = /<body[^>]*>/.exec(html);
  if (head < 0 || !body) throw new Error('the generated report has no <head> or <body>');
  const at = body.index + body[0].length;
  return [[html.slice(0, head), encoding], [STYLE, 'utf8'], [html.slice(head, at), encoding], [verdictBanner(report), 'utf8'], [html.slice(at), encoding]];
}

/** Writes `<reportDir>/report.html` from `<reportDir>/allure-results`; its path, or nothing (said on
 *  stderr) when the Allure CLI is not installed. */
export async function writeHtmlReport(reportDir: string, title: string, report: Report, ramResults?: string): Promise<string[]> {
  const cli = allureCli();
  if (!cli) {
    process.stderr.write(`note: ${ALLURE_MISSING}\n`);
    return [];
  }
  // In RAM, copied (or linked: `ramResults`, the same results the presentation wrote there, whose
  // copy is still being written into the report directory); otherwise beside the results (the same
  // file system), so that they are linked.
  const results = ramResults ?? join(reportDir, 'allure-results');
  const ram = ramResults !== undefined || htmlWorkPlace(results) === 'ram';
  const work = ram ? sharedWorkDir(ramDir(), 'html') : workDir(join(reportDir, HTML_WORK));
  try {
    writeFileSync(join(work, 'allurerc.mjs'), CONFIG);
    linkTree(results, join(work, 'results'), ram && ramResults === undefined);
    prettyAttachments(join(work, 'results'));
    const allure = ahead ?? allureChild(cli);
    ahead = undefined;
    const args = ['generate', join(work, 'results'), '--config', join(work, 'allurerc.mjs'), '--output', join(work, 'out'), '--report-name', title];
    const { code, stderr } = await allure.run(JSON.stringify({ args, cwd: work }), 120_000);
    if (code !== 0) throw new Error(`allure generate failed: ${(stderr || `exit code ${code}`).trim().split('\n').pop()}`);
    // Allure's page is some 11 MB: read as latin1 (a byte a character, whatever the bytes, written
    // back as the same bytes; the patterns above are ASCII, so they match as in UTF-8), edited once
    // and written in pieces, never joined or encoded whole (that took the run's peak up 44 MB).
    const html = selfContained(readFileSync(join(work, 'out', 'index.html'), 'latin1'));
    return [replaceFileInPieces(join(reportDir, 'report.html'), verdictPieces(html, report, 'latin1'))];
  } finally {
    releaseWorkDir(work);
  }
}
