// Merging the reports of a run split into shards (--shard i/n, one machine each) into the report of
// one run: counts add up, distinct findings are counted together, examples are kept in shard order,
// and the verdict is reached again from the merged checks, as the engine reaches it. The shards'
// reports are already redacted and display-safe; nothing here reads a body.
import { cutShort } from '../checks/verdict-rule.js';
import { AREAS } from '../checks/check.js';
import { checkById } from '../checks/catalogue.js';
import { statusAndMessage, type RunCounts } from '../engine/run.js';
import { runVerdict } from './verdict.js';
import { byCount, MAX_EXAMPLE_EXCHANGES, MAX_EXAMPLES, MAX_GROUPS, type FindingGroup } from '../engine/tally.js';
import { mergeDifferential } from './differential.js';
import { REPORT_LINE, tally, type ReportedCheck, type ReportedExchange, type Report, type RunIdentity } from './report.js';

/** A shard's warning that its verdict is its part's only (the merge leaves these out). */
export const shardWarning = (index: number, count: number, mergeCommand: string): string =>
  `shard ${index}/${count}: one part of a run; its verdict covers this part only, and ${mergeCommand} of every shard gives the run's`;
const SHARD_WARNING = /^shard \d+\/\d+: one part of a run; /;

const addCounts = (into: Record<string, number>, from: Readonly<Record<string, number>>) => {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
};

function mergeGroups(lists: readonly (readonly FindingGroup[])[]): FindingGroup[] {
  const byKey = new Map<string, { message: string; path?: string; count: number }>();
  for (const g of lists.flat()) {
    const key = `${g.path ?? ''}\0${g.message}`;
    const had = byKey.get(key);
    if (had) had.count += g.count;
    else byKey.set(key, { ...g });
  }
  const sorted = [...byKey.values()].sort(byCount);
  if (sorted.length <= MAX_GROUPS) return sorted;
  const rest = sorted.slice(MAX_GROUPS).reduce((n, g) => n + g.count, 0);
  return [...sorted.slice(0, MAX_GROUPS), { message: `${rest} more findings of other kinds (only ${MAX_GROUPS} distinct kinds are kept)`, count: rest }];
}

/** A check's examples as one whole run keeps them (tally.ts): probes first, then by account (the
 *  order it meets them in), from the first MAX_EXAMPLE_EXCHANGES exchanges other than probes, at most
 *  MAX_EXAMPLES. Each shard kept its own first ones, so the run's first ones are among them; and the
 *  merged report, like a run's, is bounded whatever the number of shards. */
function mergedEvidence(parts: readonly ReportedCheck[], probes: ReadonlySet<string>): ReportedCheck['evidence'] {
  const kept = new Set<string>();
  const evidence: ReportedCheck['evidence'][number][] = [];
  for (const f of parts.flatMap((p) => p.evidence).sort((a, b) => (a.case ?? -1) - (b.case ?? -1))) {
    if (evidence.length >= MAX_EXAMPLES) break;
    if (!probes.has(f.exchange) && !kept.has(f.exchange)) {
      if (kept.size >= MAX_EXAMPLE_EXCHANGES) continue;
      kept.add(f.exchange);
    }
    evidence.push(f);
  }
  return evidence;
}

/** `evidence`: mergedEvidence; `kept`: the exchanges the merged report keeps (engine/run.ts: a kept
 *  exchange is listed with every check that judged it, as each shard listed it). */
function mergeCheck(parts: readonly ReportedCheck[], mode: Report['mode'], evidence: ReportedCheck['evidence'], kept: ReadonlySet<string>): ReportedCheck {
  const first = parts[0]!;
  const check = checkById.get(first.id)!;
  const sum = (k: keyof ReportedCheck['counts']) => parts.reduce((n, p) => n + p.counts[k], 0);
  const counts = { judged: sum('judged'), probes: sum('probes'), failed: sum('failed'), skipped: sum('skipped'), findings: sum('findings') };
  // The replay is of the first finding's exchange, as the message names it: the shard that met it first.
  const replayed = parts.find((p) => p.status === 'fail' && p.evidence[0]?.exchange === evidence[0]?.exchange) ?? parts.find((p) => p.status === 'fail');
  const skipped = parts.find((p) => p.counts.skipped > 0 || p.status === 'skip');
  const { status, message } = statusAndMessage({
    judged: counts.judged, judgedProbes: counts.probes, failed: counts.failed, skipped: counts.skipped, findings: counts.findings,
    ...(evidence[0] ? { first: evidence[0] } : {}),
    // A shard's own message already says why it could not look; the merged line keeps the first one.
    ...(skipped ? { skipReason: skipped.status === 'skip' ? skipped.message : skipped.message.replace(/^.*not judged on \d+ exchange\(s\): /, '') } : {}),
  }, check, mode, undefined, REPORT_LINE);
  return {
    ...first, status, message, counts, evidence,
    groups: mergeGroups(parts.map((p) => p.groups)),
    exchanges: [...new Set(parts.flatMap((p) => p.exchanges))].filter((id) => kept.has(id)),
    ...(replayed?.replay ? { replay: replayed.replay } : {}),
  };
}

function mergeRunCounts(all: readonly RunCounts[]): RunCounts {
  const bySource: Record<string, number> = {};
  const notSent: Record<string, number> = {};
  const kinds: Record<string, number> = {};
  const notInterface: Record<string, number> = {};
  for (const c of all) {
    addCounts(bySource, c.bySource);
    addCounts(notSent, c.notSent ?? {});
    addCounts(kinds, c.kinds);
    addCounts(notInterface, c.notInterface);
  }
  return {
    exchanges: all.reduce((n, c) => n + c.exchanges, 0),
    bySource,
    ...(Object.keys(notSent).length ? { notSent } : {}),
    cases: all.reduce((n, c) => n + c.cases, 0),
    kinds: Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : 1))),
    notInterface,
    notInterfaceTotal: all.reduce((n, c) => n + c.notInterfaceTotal, 0),
    ...(all.some((c) => c.unjudged) ? { unjudged: all.reduce((n, c) => n + (c.unjudged ?? 0), 0) } : {}),
  };
}

/** The members of the run identity a merge compares, with how each is named when shards disagree. */
const IDENTITY: readonly [keyof RunIdentity, string][] = [
  ['runId', 'run id'], ['configurationSha256', 'configuration (SHA-256)'], ['catalogueHash', 'catalogue'], ['accountsSha256', 'accounts file (SHA-256)'],
];

/** Why these reports are not of one run: each must carry its run's identity, and all must agree.
 *  The odd one out is named against the identity most of them share (the first shard's on a tie). */
function checkIdentity(reports: readonly Report[], dirs: readonly string[]): string | undefined {
  const where = (i: number) => dirs[i] ?? `report ${i + 1}`;
  const missing = reports.findIndex((r) => !r.run);
  if (missing >= 0) return `${where(missing)} carries no run identity (made by an older harness): it cannot be told to belong to this run`;
  const key = (r: Report) => JSON.stringify(IDENTITY.map(([k]) => r.run![k] ?? null));
  const votes = new Map<string, number>();
  for (const r of reports) votes.set(key(r), (votes.get(key(r)) ?? 0) + 1);
  const most = Math.max(...votes.values());
  const usual = reports.find((r) => votes.get(key(r)) === most)!;
  const odd = reports.findIndex((r) => key(r) !== key(usual));
  if (odd < 0) return undefined;
  const other = reports.indexOf(usual);
  const [k, what] = IDENTITY.find(([member]) => reports[odd]!.run![member] !== usual.run![member])!;
  const shown = (r: Report) => JSON.stringify(String(r.run![k] ?? 'none').slice(0, 80));
  const changed = k === 'configurationSha256' ? configurationDifference(reports[odd]!, usual) : undefined;
  return `${where(odd)} is not a shard of the run ${where(other)} belongs to: another ${what}, ${shown(reports[odd]!)} not ${shown(usual)}${changed ? ` (${changed})` : ''}`;
}

/** The first setting two shards' configurations differ in, as "--timeout 5000, not 10000". */
function configurationDifference(a: Report, b: Report): string | undefined {
  const flat = (r: Report) => {
    const out = new Map<string, string>();
    const walk = (prefix: string, v: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(prefix ? `${prefix}.${k}` : k, x);
      else out.set(prefix, JSON.stringify(v));
    };
    walk('', r.configuration);
    return out;
  };
  const [x, y] = [flat(a), flat(b)];
  const skip = /^(reportDir|generate|mergedFrom)(\.|$)|^options\.(report-dir|shard|run-id|quiet)$/;
  for (const name of [...new Set([...x.keys(), ...y.keys()])].sort()) {
    if (skip.test(name) || x.get(name) === y.get(name)) continue;
    const label = name.startsWith('options.') ? `--${name.slice('options.'.length)}` : name;
    const [mine, theirs] = [x.get(name)?.slice(0, 80), y.get(name)?.slice(0, 80)];
    return mine === undefined ? `${label} ${theirs!} not given to this shard` : theirs === undefined ? `${label} ${mine} given to this shard only` : `${label} ${mine}, not ${theirs}`;
  }
  return a.harness.commit !== b.harness.commit || a.harness.version !== b.harness.version ? 'another harness version or commit' : undefined;
}

/** Why these reports are not the shards of one run (each of 1..N once, of the same N and accounts), or undefined. */
function checkShards(reports: readonly Report[], dirs: readonly string[]): string | undefined {
  const options = (r: Report) => ((r.configuration as { options?: Record<string, unknown> }).options ?? {});
  const seen = new Map<number, string>();
  let count: number | undefined;
  for (const [i, r] of reports.entries()) {
    const where = dirs[i] ?? `report ${i + 1}`;
    const m = /^(\d+)\/(\d+)$/.exec(String(options(r).shard ?? ''));
    if (!m) return `${where} is not a shard of a run (made without --shard I/N)`;
    const [index, n] = [Number(m[1]), Number(m[2])];
    if (count !== undefined && n !== count) return `${where} is shard ${index}/${n}, not one of ${count}`;
    count = n;
    if (seen.has(index)) return `${where} and ${seen.get(index)!} are both shard ${index}/${n}`;
    seen.set(index, where);
    if (String(options(r).accounts) !== String(options(reports[0]!).accounts)) return `${where} read other accounts than ${dirs[0] ?? 'report 1'}`;
  }
  const missing = Array.from({ length: count ?? 0 }, (_, k) => k + 1).filter((k) => !seen.has(k));
  return missing.length ? `shard ${missing.join(', ')} of ${count} is missing: the merge of a part is not the run's verdict` : undefined;
}

export type Merged = { readonly ok: true; readonly report: Report } | { readonly ok: false; readonly error: string };

/** One report from the shards' reports (in shard order), or why they cannot be merged. */
export function mergeReports(reports: readonly Report[], dirs: readonly string[]): Merged {
  const [head] = reports;
  if (!head) return { ok: false, error: 'nothing to merge' };
  const shards = checkShards(reports, dirs);
  if (shards) return { ok: false, error: shards };
  for (const [i, r] of reports.entries()) {
    const where = dirs[i] ?? `report ${i + 1}`;
    if (r.catalogueHash !== head.catalogueHash) return { ok: false, error: `${where} was made by another catalogue (${r.catalogueHash}, not ${head.catalogueHash})` };
    if (r.target.baseUrl !== head.target.baseUrl) return { ok: false, error: `${where} checked ${r.target.baseUrl}, not ${head.target.baseUrl}` };
    if (r.mode !== head.mode) return { ok: false, error: `${where} is a ${r.mode} run, not a ${head.mode} run` };
    if (r.checks.map((c) => c.id).join() !== head.checks.map((c) => c.id).join()) return { ok: false, error: `${where} ran other checks (--only / --skip differ)` };
    if (!r.differential !== !head.differential) {
      const first = dirs[0] ?? 'the first report';
      return { ok: false, error: r.differential ? `${where} is a differential run (--legacy-url) and ${first} is not` : `${where} is not a differential run (--legacy-url) and ${first} is` };
    }
    if ((r.gate ?? 'must') !== (head.gate ?? 'must')) return { ok: false, error: `${where} was gated on ${r.gate ?? 'must'} checks, ${dirs[0] ?? 'the first report'} on ${head.gate ?? 'must'} (--fail-on differs)` };
    if (r.differential && r.differential.legacy.baseUrl !== head.differential!.legacy.baseUrl) return { ok: false, error: `${where} was compared with the legacy ${r.differential.legacy.baseUrl}, not ${head.differential!.legacy.baseUrl}` };
  }
  // After the differences named above, which say more than "another configuration".
  const identity = checkIdentity(reports, dirs);
  if (identity) return { ok: false, error: identity };
  // What one whole run keeps: the probes, and the exchanges its checks' examples (and shrinks) point at.
  const probes = new Set(reports.flatMap((r) => r.exchanges.filter((ex) => ex.source === 'probe').map((ex) => ex.id)));
  const partsOf = head.checks.map((_, i) => reports.map((r) => r.checks[i]!));
  const evidence = partsOf.map((parts) => mergedEvidence(parts, probes));
  const kept = new Set([...probes, ...evidence.flat().map((f) => f.exchange), ...partsOf.flat().flatMap((c) => (c.shrunk ? [c.shrunk.exchange] : []))]);
  const checks = partsOf.map((parts, i) => mergeCheck(parts, head.mode, evidence[i]!, kept));
  // An exchange a shard kept for its checks' examples only, and the merge not, is left out; any other
  // (a difference's example) is kept.
  const ofChecks = new Set(partsOf.flat().flatMap((c) => c.exchanges));
  const exchanges: ReportedExchange[] = [];
  const seen = new Set<string>();
  for (const ex of reports.flatMap((r) => r.exchanges)) if (!seen.has(ex.id) && (kept.has(ex.id) || !ofChecks.has(ex.id))) { seen.add(ex.id); exchanges.push(ex); }
  const runCounts = mergeRunCounts(reports.map((r) => r.counts.exchanges));
  const must = checks.filter((c) => c.level === 'MUST');
  const unreachable = reports.find((r) => r.unreachable !== undefined); // as stated, not a shard's verdict as written
  const stopped = reports.find((r) => r.stopped)?.stopped;
  // A part written while its run went on leaves the merge in progress too.
  const inProgress = reports.some((r) => r.inProgress);
  const runProblems = [...new Set(reports.flatMap((r) => r.runProblems ?? []))];
  const { runProblems: _r, outputProblems: _o, inProgress: _p, ...shared } = head;
  const verdict = runVerdict({
    unreachable: unreachable !== undefined, mode: head.mode, interfaceSeen: Object.keys(runCounts.kinds).length > 0,
    casesNotSent: (runCounts.notSent?.case ?? 0) > 0, stopped: cutShort({ stopped, inProgress }),
  }, checks, head.gate ?? 'must');
  const startedAt = reports.map((r) => r.startedAt).sort()[0]!;
  const finishedAt = reports.map((r) => r.finishedAt).sort().at(-1)!;
  const max = (f: (r: Report) => number | undefined) => Math.max(0, ...reports.map((r) => f(r) ?? 0));
  return {
    ok: true,
    report: {
      ...shared,
      verdict,
      ...(unreachable?.unreachable ? { unreachable: unreachable.unreachable } : {}),
      ...(stopped ? { stopped } : {}),
      ...(inProgress ? { inProgress: true as const } : {}),
      // What any part's evidence lost, the merge lost too (its outputs' problems were its own).
      ...(runProblems.length ? { runProblems } : {}),
      startedAt,
      finishedAt,
      durationMs: Date.parse(finishedAt) - Date.parse(startedAt),
      configuration: { ...head.configuration, mergedFrom: dirs },
      ...(head.differential ? { differential: mergeDifferential(reports.map((r) => r.differential!)) } : {}),
      // Each shard's "covers this part only" is true of the shard, not of the merge: the shards are listed once.
      warnings: [...new Set(reports.flatMap((r) => r.warnings.filter((w) => !SHARD_WARNING.test(w))))],
      timings: {
        startupMs: max((r) => r.timings.startupMs),
        sendingMs: reports.reduce((n, r) => n + r.timings.sendingMs, 0),
        checkingMs: reports.reduce((n, r) => n + r.timings.checkingMs, 0),
      },
      peakRss: { checkingBytes: max((r) => r.peakRss.checkingBytes), runBytes: max((r) => r.peakRss.runBytes) },
      counts: {
        MUST: tally(must),
        SHOULD: tally(checks.filter((c) => c.level === 'SHOULD')),
        byArea: Object.fromEntries(AREAS.map((a) => [a, tally(checks.filter((c) => c.area === a))])),
        exchanges: runCounts,
      },
      checks,
      exchanges,
    },
  };
}
