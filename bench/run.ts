// `npm run bench`: figures printed as a table and written to bench/results.json.
//   1. effective serial round trips per run: (T with 1000 ms added to every response − T with 0) / 1 s
//   2. requests sent per run
//   3. wall time of a cold `npm run conformance` against the embedded reference
//   4. reference throughput relative to bare node:http answering the same bytes (autocannon)
//   5. peak memory (RSS) of a run
//   6. accounts: exchanges judged per second over 10 000 accounts against the reference, as a ratio
//      to autocannon's requests per second on the same route of the same reference, in the same run
//   7. peak memory (RSS) of runs over 10 000 and 100 000 accounts (--skip-100k leaves the latter out)
//   8. HAR: MB/s, entries/s and peak RSS judging a generated recording of --har-mib MiB (1024 by default)
//   9. proxy: autocannon's requests per second through --proxy as a ratio to direct, in the same run,
//      beside the same ratio for a bare forwarder (what forwarding alone costs here), the share of
//      that load the judge judged, and the p99 latency the proxy adds
// --only run,accounts,har,proxy measures those groups alone; the other figures of bench/results.json
// are kept, each with the date it was measured. Benchmarks measure; they never fail. Timings are
// medians of several rounds.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../lib/paths.js';
import { startReference } from '../lib/reference/server.js';
import { generatedHar } from './generated-har.js';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' }, 'skip-100k': { type: 'boolean' }, only: { type: 'string' }, 'har-mib': { type: 'string' } } });
const GROUPS = ['run', 'accounts', 'har', 'proxy'] as const;
const only = values.only?.split(',') ?? [...GROUPS];
const want = (g: (typeof GROUPS)[number]) => only.includes(g);
const ROUNDS = Number(values.rounds ?? 3);
const SECONDS = Number(values.seconds ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function timed(cmd: string, args: string[]): Promise<{ ms: number; code: number }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: PROJECT_ROOT, stdio: 'ignore', env: { ...process.env, BASE_URL: '' } });
    child.on('exit', (code) => resolve({ ms: performance.now() - t, code: code ?? -1 }));
  });
}

function serve(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BASE_URL: '' } });
  return new Promise((resolve) => child.stdout!.on('data', (d: Buffer) => {
    const url = /(?:listening on|proxying) (\S+)/.exec(d.toString())?.[1];
    if (url) resolve({ url, child });
  }));
}

async function cliRun(baseUrl?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const r = await timed(process.execPath, ['bin/run.mjs', 'cli/main', '--report-dir', dir, ...(baseUrl ? ['--base-url', baseUrl] : [])]);
  const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { exchanges: { attempts?: number; error?: string }[]; peakRss: { runBytes: number } };
  const requests = summary.exchanges.reduce((n, e) => n + (e.error?.startsWith('not sent') ? 0 : e.attempts ?? 1), 0);
  return { ms: r.ms, requests, peakRss: summary.peakRss.runBytes };
}

async function load(url: string, body = '{"userName":"jdoe.support"}', connections = 50): Promise<{ rps: number; p99: number; total: number }> {
  const r = await autocannon({ url: `${url}/supportstateuser`, method: 'POST', connections, duration: SECONDS, headers: { 'content-type': 'application/json' }, body });
  return { rps: r.requests.average, p99: r.latency.p99, total: r.requests.total };
}
const throughput = async (url: string, body?: string, connections?: number) => (await load(url, body, connections)).rps;

/** An accounts file of `n` cases (one login each, a confirm every third), written as a stream. */
function accountsFile(n: number): string {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-accounts-')), `accounts-${n}.jsonl`);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(JSON.stringify({
      SupportStateUserLoginRequest: { userName: `user${i}`, searchValues: `s${i}` },
      ...(i % 3 === 0 ? { ConfirmEmailRequest: { recoveryToken: `rt${i}`, verifyEmail: `u${i}@example.org`, ownerId: i, isForMM: false, systemCode: 'Unspecified' } } : {}),
    }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

interface AccountsRun { exchangesPerSecond: number; casesPerSecond: number; checkingRss: number; runRss: number; presentationRss: number; exchanges: number }

async function accountsRun(baseUrl: string, file: string): Promise<AccountsRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  await timed(process.execPath, ['bin/run.mjs', 'cli/main', '--base-url', baseUrl, '--accounts', file, '--report-dir', dir, '--quiet']);
  const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
    timings: { sendingMs: number }; peakRss: { checkingBytes: number; runBytes: number; presentationBytes: number };
    counts: { exchanges: { exchanges: number; cases: number } };
  };
  const seconds = s.timings.sendingMs / 1000;
  return {
    exchangesPerSecond: s.counts.exchanges.exchanges / seconds, casesPerSecond: s.counts.exchanges.cases / seconds, exchanges: s.counts.exchanges.exchanges,
    checkingRss: s.peakRss.checkingBytes, runRss: s.peakRss.runBytes, presentationRss: s.peakRss.presentationBytes,
  };
}

process.stdout.write(`bench: ${ROUNDS} rounds, ${SECONDS} s throughput samples\n`);

const mb = (b: number) => Math.round(b / 1e6);
type Figure = { value: number; goal: string; detail?: string };
const figures: Record<string, Figure> = {};

if (want('run')) {
  // 1 and 2: the same full run against a near and a far-looking reference.
  const near = await startReference();
  const far = await startReference({ latencyMs: 1000 });
  const nearRuns = [], farRuns = [];
  for (let i = 0; i < ROUNDS; i++) { nearRuns.push(await cliRun(near.url)); farRuns.push(await cliRun(far.url)); }
  await Promise.all([near.close(), far.close()]);
  const serialRoundTrips = (median(farRuns.map((r) => r.ms)) - median(nearRuns.map((r) => r.ms))) / 1000;

  // 3 and 5: cold `npm run conformance`, embedded reference.
  const cold = [];
  for (let i = 0; i < ROUNDS; i++) cold.push(await timed('npm', ['run', 'conformance', '--silent']));
  const coldRuns = [];
  for (let i = 0; i < ROUNDS; i++) coldRuns.push(await cliRun());

  // 4: the reference against bare node:http, alternating, in separate processes from autocannon.
  const reference = await serve(['bin/run.mjs', 'cli/reference', '--port', '0']);
  const bare = await serve(['bench/bare-server.mjs']);
  const refRps = [], bareRps = [];
  for (let i = 0; i < ROUNDS; i++) { refRps.push(await throughput(reference.url)); bareRps.push(await throughput(bare.url)); }
  reference.child.kill();
  bare.child.kill();
  Object.assign(figures, {
    serialRoundTripsPerRun: { value: +serialRoundTrips.toFixed(2), goal: '<= 2 (limit 1)', detail: `median run ${Math.round(median(nearRuns.map((r) => r.ms)))} ms at 0 ms latency, ${Math.round(median(farRuns.map((r) => r.ms)))} ms at 1000 ms` },
    requestsPerRun: { value: median(nearRuns.map((r) => r.requests)), goal: 'one per distinct exchange' },
    coldConformanceSeconds: { value: +(median(cold.map((c) => c.ms)) / 1000).toFixed(2), goal: '<= 3 s on the 2-core machine', detail: `npm run conformance, exit codes ${[...new Set(cold.map((c) => c.code))].join(',')}` },
    referenceThroughputRatio: { value: +(median(refRps) / median(bareRps)).toFixed(2), goal: '>= 0.8', detail: `median ${Math.round(median(refRps))} req/s against ${Math.round(median(bareRps))} req/s for bare node:http` },
    peakRssMegabytes: { value: Math.round(median(coldRuns.map((r) => r.peakRss)) / 1e6), goal: 'reported', detail: 'the run\'s process, embedded reference; vitest presents in a child of its own' },
  });
}

if (want('accounts')) {
  // 6 and 7: accounts against a reference in its own process (each account answered with its own
  // record); autocannon asks the same reference for one non-sample account, 32 connections like the harness.
  const population = await serve(['bin/run.mjs', 'cli/reference', '--port', '0']);
  const tenK = await accountsRun(population.url, accountsFile(10_000));
  const loadRps = await throughput(population.url, '{"userName":"user7","searchValues":"s7"}', 32);
  const hundredK = values['skip-100k'] ? undefined : await accountsRun(population.url, accountsFile(100_000));
  population.child.kill();
  Object.assign(figures, {
    accountsThroughputRatio: { value: +(tenK.exchangesPerSecond / loadRps).toFixed(2), goal: '>= 0.5', detail: `${Math.round(tenK.exchangesPerSecond)} exchanges/s (${Math.round(tenK.casesPerSecond)} accounts/s) judged over 10 000 accounts against ${Math.round(loadRps)} req/s from autocannon on the same reference` },
    accountsPeakRssMegabytes10k: { value: mb(tenK.runRss), goal: '<= 300 MB', detail: `${tenK.exchanges} exchanges; judging ${mb(tenK.checkingRss)} MB, presentation child ${mb(tenK.presentationRss)} MB` },
    ...(hundredK ? { accountsPeakRssMegabytes100k: { value: mb(hundredK.runRss), goal: '<= 300 MB, flat', detail: `${hundredK.exchanges} exchanges at ${Math.round(hundredK.exchangesPerSecond)}/s; judging ${mb(hundredK.checkingRss)} MB, presentation child ${mb(hundredK.presentationRss)} MB` } } : {}),
  });
}

if (want('har')) {
  // 8: a generated recording judged offline, streamed.
  const har = await generatedHar(Number(values['har-mib'] ?? 1024));
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const t = await timed(process.execPath, ['bin/run.mjs', 'cli/main', '--har', har.path, '--report-dir', dir, '--quiet']);
  const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { timings: { sendingMs: number }; peakRss: { checkingBytes: number; runBytes: number; presentationBytes: number } };
  const judging = s.timings.sendingMs / 1000;
  Object.assign(figures, {
    harMegabytesPerSecond: { value: +(har.bytes / 1e6 / judging).toFixed(1), goal: 'reported', detail: `${Math.round(har.bytes / 1024 / 1024)} MiB, ${har.entries} entries judged in ${judging.toFixed(1)} s (${Math.round(har.entries / judging)} entries/s); ${(t.ms / 1000).toFixed(1)} s with the reports` },
    harPeakRssMegabytes: { value: mb(s.peakRss.runBytes), goal: '< 300 MB', detail: `judging ${mb(s.peakRss.checkingBytes)} MB, presentation child ${mb(s.peakRss.presentationBytes)} MB` },
  });
}

if (want('proxy')) {
  // 9: the same load straight to a reference and through the proxy, alternating; each in its own process.
  const target = await serve(['bin/run.mjs', 'cli/reference', '--port', '0']);
  const proxyReports = mkdtempSync(join(tmpdir(), 'bench-proxy-'));
  const proxy = await serve(['bin/run.mjs', 'cli/main', '--proxy', '0', '--base-url', target.url, '--report-dir', proxyReports]);
  const bareProxy = await serve(['bench/bare-proxy.mjs', target.url]);
  const direct = [], through = [], bare = [];
  for (let i = 0; i < ROUNDS; i++) {
    direct.push(await load(target.url));
    bare.push(await load(bareProxy.url));
    through.push(await load(proxy.url));
    // The proxy's judge catches up after a load (at most 1 000 exchanges wait for it): let it, so
    // that the next round's direct and bare figures do not share the cores with it.
    await new Promise((r) => setTimeout(r, 3000));
  }
  bareProxy.child.kill();
  // Stopped as a user stops it, so its reports say how much of that load its judge kept up with.
  const stopped = new Promise((resolve) => proxy.child.on('exit', resolve));
  proxy.child.kill('SIGTERM');
  await stopped;
  target.child.kill();
  const judged = JSON.parse(readFileSync(join(proxyReports, 'summary.json'), 'utf8')) as { counts: { exchanges: { exchanges: number } }; warnings: string[] };
  const forwarded = through.reduce((n, x) => n + x.total, 0);
  const [d, p, b] = [median(direct.map((x) => x.rps)), median(through.map((x) => x.rps)), median(bare.map((x) => x.rps))];
  const [dp99, pp99] = [median(direct.map((x) => x.p99)), median(through.map((x) => x.p99))];
  Object.assign(figures, {
    proxyThroughputRatio: { value: +(p / d).toFixed(2), goal: '>= 0.7', detail: `median ${Math.round(p)} req/s through the proxy against ${Math.round(d)} req/s direct, 50 connections` },
    bareProxyThroughputRatio: { value: +(b / d).toFixed(2), goal: 'reported', detail: `median ${Math.round(b)} req/s through a bare node:http forwarder (bench/bare-proxy.mjs: no copy, no judging) against ${Math.round(d)} req/s direct: what forwarding alone costs here` },
    proxyJudgedShare: { value: +(judged.counts.exchanges.exchanges / forwarded).toFixed(2), goal: 'reported', detail: `${judged.counts.exchanges.exchanges} of the ${forwarded} exchanges forwarded under that load were judged; the judge (lowest priority, its own thread) let the rest pass unjudged and counted them` },
    proxyAddedP99Milliseconds: { value: Math.round(pp99 - dp99), goal: 'reported', detail: `p99 ${pp99} ms through the proxy, ${dp99} ms direct` },
  });
}

// Figures of groups not measured this time are kept from the last results, with the date they were measured.
const RESULTS = join(PROJECT_ROOT, 'bench', 'results.json');
const previous = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) as { date: string; figures: Record<string, Figure & { measured?: string }> } : undefined;
const now = new Date().toISOString();
const all: Record<string, Figure & { measured?: string }> = {
  ...Object.fromEntries(Object.entries(previous?.figures ?? {}).map(([k, f]) => [k, { ...f, measured: f.measured ?? previous!.date }])),
  ...Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, { ...f, measured: now }])),
};
const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 1024 ** 3), node: process.version, platform: process.platform };
writeFileSync(RESULTS, `${JSON.stringify({ date: now, machine, rounds: ROUNDS, figures: all }, null, 2)}\n`);

const rows = Object.entries(figures).map(([k, f]) => [k, String(f.value), f.goal, f.detail ?? '']);
const width = (i: number) => Math.max(...rows.map((r) => r[i]!.length), 6);
for (const r of [['figure', 'value', 'goal', 'detail'], ...rows]) process.stdout.write(`${r.map((c, i) => c.padEnd(width(i))).join('  ')}\n`);
process.stdout.write(`machine: ${machine.cpus} × ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node}; written to bench/results.json\n`);
