// The engine: choose checks, send each exchange they need once (concurrently, bounded), run the
// checks on the recordings, and state the verdict. No printing, no files: callers present it.
import type { Dispatcher } from 'undici';
import type { Check, Finding, Level, Outcome } from '../checks/check.js';
import { CATALOGUE } from '../checks/catalogue.js';
import { CheckContext } from '../checks/context.js';
import { UNREACHABLE, type Exchange, type ExchangeSpec } from '../http/exchange.js';
import { BodySlots, createDispatcher, RequestBudget, send, type TransportOptions } from '../http/send.js';
import { planExchanges, type RequestSettings } from './exchanges.js';

export interface RunOptions extends RequestSettings, TransportOptions {
  readonly baseUrl: string;
  /** Checks to run (default: the whole catalogue). */
  readonly checks?: readonly Check[];
  /** Exchanges in flight at once. */
  readonly concurrency?: number;
  /** Supply a dispatcher (tests); otherwise one is made from the options and closed here. */
  readonly dispatcher?: Dispatcher;
  /** At most this many requests in the run (retries count). */
  readonly maxRequests?: number;
  /** At most this many requests per second. */
  readonly ratePerSecond?: number;
}

export interface CheckResult {
  readonly check: Check;
  readonly status: 'pass' | 'fail' | 'skip';
  /** One line. */
  readonly message: string;
  readonly findings: readonly Finding[];
}

/** conformant: every MUST check passed. incomplete: none failed but some could not be evaluated. */
export type Verdict = 'conformant' | 'non-conformant' | 'incomplete' | 'unreachable';

export interface RunResult {
  readonly baseUrl: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly exchanges: readonly Exchange[];
  readonly results: readonly CheckResult[];
  readonly verdict: Verdict;
  /** Set when the verdict is "unreachable": the one-line cause. */
  readonly unreachable?: string;
  /** Wall time spent sending (all exchanges, concurrently) and judging. */
  readonly timings: { readonly sendingMs: number; readonly checkingMs: number };
}

/** Every exchange of a full run in flight at once: a run costs one round trip, not one per exchange. */
export const DEFAULT_CONCURRENCY = 32;

/** Runs `task` over `items` with at most `limit` in flight, keeping order. */
async function pooled<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

function summarise(check: Check, ctx: CheckContext): CheckResult {
  let outcome: Outcome;
  try {
    outcome = check.run(ctx);
  } catch (e) {
    // A check that throws is a harness defect; say so rather than hide it as a pass.
    outcome = { status: 'fail', findings: [{ exchange: check.exchanges[0] ?? '-', message: `harness error in ${check.id}: ${(e as Error).message}` }] } as const;
  }
  if (outcome.status === 'skip') return { check, status: 'skip', message: outcome.reason, findings: [] };
  if (outcome.status === 'pass') return { check, status: 'pass', message: outcome.note ?? 'passed', findings: [] };
  const [first, ...rest] = outcome.findings;
  const where = first?.path ? ` at ${first.path}` : '';
  const more = rest.length ? ` (+${rest.length} more)` : '';
  return { check, status: 'fail', message: `${first?.exchange}: ${first?.message}${where}${more}`, findings: outcome.findings };
}

export const failedAt = (results: readonly CheckResult[], level: Level) => results.filter((r) => r.status === 'fail' && r.check.level === level);

export async function runConformance(options: RunOptions): Promise<RunResult> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const checks = options.checks ?? CATALOGUE;
  const plan = planExchanges(options);
  const needed: ExchangeSpec[] = [...new Set(checks.flatMap((c) => c.exchanges))].map((id) => {
    const spec = plan.get(id);
    if (!spec) throw new Error(`no exchange named ${id}`);
    return spec;
  });
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const dispatcher = options.dispatcher ?? createDispatcher({ ...options, connections: options.connections ?? concurrency });
  const budget = new RequestBudget(options.maxRequests, options.ratePerSecond);
  const slots = new BodySlots();
  let exchanges: Exchange[];
  try {
    exchanges = await pooled(needed, concurrency, (spec) => send(spec, options.baseUrl, { dispatcher, options, budget, slots }));
  } finally {
    if (!options.dispatcher) await dispatcher.close();
  }
  const t1 = performance.now();
  // Unreachable: every exchange actually sent failed to connect (those the cap held back say nothing).
  const sent = exchanges.filter((e) => e.error?.kind !== 'not-sent');
  const unreachable = sent.length > 0 && sent.every((e) => e.error && UNREACHABLE.has(e.error.kind)) ? sent[0]!.error!.message : undefined;
  const ctx = new CheckContext(new Map(exchanges.map((e) => [e.id, e])), { namespaces: options.namespaces });
  const results = checks.map((c) => summarise(c, ctx));
  const mustSkipped = results.some((r) => r.status === 'skip' && r.check.level === 'MUST');
  const verdict: Verdict = unreachable ? 'unreachable'
    : failedAt(results, 'MUST').length ? 'non-conformant'
      : mustSkipped ? 'incomplete' : 'conformant';
  return {
    baseUrl: options.baseUrl, startedAt, finishedAt: new Date().toISOString(),
    exchanges, results, verdict, ...(unreachable ? { unreachable } : {}),
    timings: { sendingMs: Math.round(t1 - t0), checkingMs: Math.round(performance.now() - t1) },
  };
}
