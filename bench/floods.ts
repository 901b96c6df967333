// `npx tsx bench/floods.ts [--rounds 3] [--only xml-cdata,json-literals] [--har-mib 256]`: the peak
// RSS of each memory-bound run of the tests, measured as the tests measure it (the CLI child's own
// peak, summary.json peakRss): the run process and the presentation child apart, min / median / max
// over the rounds. The scenarios are the floods of test/hostile-cli.test.ts (every report presented,
// so the presentation child is measured for each), a HAR of calls only (--har-mib), the HAR of
// test/har-memory.test.ts (calls among assets), the 150 MB
// HAR entry of test/har.test.ts, the 9.5 MiB legacy records of test/differential-bounds.test.ts and
// the accounts run of test/differential.test.ts. The tests bound each at 300 MB; the goal here is
// 250 MB, so a loaded machine leaves the tests a margin (issue 21 #17). Measures; never fails.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startHostile, type HostileMode } from '../test/helpers/hostile.js';
import { generatedHar } from './generated-har.js';
import { startLongRecordLegacy } from '../test/helpers/long-record-legacy.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MB = 1e6;

/** The floods of test/hostile-cli.test.ts. */
export const FLOOD_MODES: readonly HostileMode[] = [
  'xml-elements', 'xml-deep', 'xml-attributes', 'xml-cdata', 'xml-texts', 'json-literals', 'json-members', 'json-number', 'json-deep', 'gzip',
];

export interface Peak { readonly run: number; readonly presentation?: number }
export interface ScenarioPeaks { readonly name: string; readonly rounds: readonly Peak[] }

/** One CLI run in a child of its own, as the tests run it; its peak RSS from summary.json. */
async function cliPeak(args: readonly string[]): Promise<Peak> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-floods-'));
  try {
    await new Promise<void>((resolve) => {
      execFile(process.execPath, ['bin/run.mjs', 'cli/main', ...args, '--report-dir', dir, '--quiet', '--timeout', '60000'], {
        cwd: ROOT, env: { ...process.env, BASE_URL: '', QUIET: '1' }, maxBuffer: 64 * 1024 * 1024,
      }, () => resolve());
    });
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { peakRss: { runBytes: number; presentationBytes?: number } };
    return { run: s.peakRss.runBytes, ...(s.peakRss.presentationBytes ? { presentation: s.peakRss.presentationBytes } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A target for the run, started before and closed after it. */
interface Scenario { readonly name: string; start(): Promise<{ args: readonly string[]; close(): Promise<void> }> }


export function scenarios(harMib: number): Scenario[] {
  return [
    ...FLOOD_MODES.map((mode): Scenario => ({
      name: mode,
      start: async () => { const t = await startHostile(mode); return { args: ['--base-url', t.url], close: () => t.close() }; },
    })),
    {
      name: `har-${harMib}mib`,
      start: async () => {
        const har = await generatedHar(harMib);
        return { args: ['--har', har.path], close: async () => rmSync(dirname(har.path), { recursive: true, force: true }) };
      },
    },
    {
      // test/har-memory.test.ts: 384 MiB, 24 of them calls, the rest 256 KiB assets of other services.
      name: 'har-384mib-assets',
      start: async () => {
        const har = await generatedHar(384, { callsMib: 24 });
        return { args: ['--har', har.path], close: async () => rmSync(dirname(har.path), { recursive: true, force: true }) };
      },
    },
    {
      name: 'har-150mb-entry',
      start: async () => {
        const work = mkdtempSync(join(tmpdir(), 'bench-floods-har-'));
        const file = join(work, 'huge-entry.har');
        const entry = { startedDateTime: '2026-01-01T00:00:00.000Z', time: 1,
          request: { method: 'POST', url: 'http://svc.test/supportstateuser', headers: [{ name: 'Content-Type', value: 'application/json' }], postData: { mimeType: 'application/json', text: '{}' } },
          response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json; charset=utf-8' }], content: { text: '@', mimeType: 'application/json' } } };
        const [head, tail] = JSON.stringify({ log: { entries: [entry] } }).split('"@"');
        writeFileSync(file, `${head}"${'a'.repeat(150 * 1024 * 1024)}"${tail}`);
        return { args: ['--har', file], close: async () => rmSync(work, { recursive: true, force: true }) };
      },
    },
    {
      name: 'legacy-9.5mib-records',
      start: async () => { const legacy = await startLongRecordLegacy(); return { args: ['--legacy-url', legacy.url], close: () => legacy.close() }; },
    },
    {
      name: 'accounts-2000',
      start: async () => {
        const work = mkdtempSync(join(tmpdir(), 'bench-floods-accounts-'));
        const file = join(work, 'accounts.jsonl');
        // As bench/run.ts writes them: one login each, a confirm every third.
        writeFileSync(file, `${Array.from({ length: 2000 }, (_, i) => JSON.stringify({
          SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` },
          ...(i % 3 === 0 ? { ConfirmEmailRequest: { recoveryToken: `rt${i}`, verifyEmail: `u${i}@example.org`, ownerId: i, isForMM: false, systemCode: 'Unspecified' } } : {}),
        })).join('\n')}\n`);
        return { args: ['--accounts', file], close: async () => rmSync(work, { recursive: true, force: true }) };
      },
    },
  ];
}

/** Each scenario's peaks over `rounds` runs, one run at a time. */
export async function measureFloods(rounds = 3, only?: readonly string[], harMib = 256, onRound?: (name: string, p: Peak) => void): Promise<ScenarioPeaks[]> {
  const out: ScenarioPeaks[] = [];
  for (const s of scenarios(harMib).filter((x) => !only || only.includes(x.name))) {
    const peaks: Peak[] = [];
    for (let i = 0; i < rounds; i++) {
      const target = await s.start();
      try {
        const p = await cliPeak(target.args);
        peaks.push(p);
        onRound?.(s.name, p);
      } finally {
        await target.close();
      }
    }
    out.push({ name: s.name, rounds: peaks });
  }
  return out;
}

const stats = (xs: readonly number[]): string => {
  if (!xs.length) return '-';
  const sorted = [...xs].sort((a, b) => a - b).map((x) => Math.round(x / MB));
  return `${sorted[0]} / ${sorted[Math.floor(sorted.length / 2)]} / ${sorted[sorted.length - 1]}`;
};

/** A table: each scenario's run and presentation peaks, MB (10^6 bytes), min / median / max. */
export function floodTable(results: readonly ScenarioPeaks[]): string {
  const rows = results.map((r) => [r.name, stats(r.rounds.map((p) => p.run)), stats(r.rounds.flatMap((p) => (p.presentation ? [p.presentation] : [])))]);
  const head = ['scenario', 'run MB min / median / max', 'presentation MB min / median / max'];
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(width[i]!)).join('  ')).join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, only: { type: 'string' }, 'har-mib': { type: 'string' } } });
  const results = await measureFloods(Number(values.rounds ?? 3), values.only?.split(','), Number(values['har-mib'] ?? 256),
    (name, p) => process.stderr.write(`${name}: run ${Math.round(p.run / MB)} MB${p.presentation ? `, presentation ${Math.round(p.presentation / MB)} MB` : ''}\n`));
  process.stdout.write(`${floodTable(results)}\n`);
}
