// Generated requests in a run (--generate N [--seed S]): N requests per operation from the contract
// (generated-requests.ts), handed to the engine as a lazy source like the accounts' requests, so
// they share its send path, its concurrency, --rate and --max-requests, and are judged as they
// complete by every check bound to their kind. Of each check that fails on a generated request, the
// first such request (in generation order, so a replay with the same seed finds the same one) is
// shrunk: every candidate is sent and the check judges its own answer (shrink.ts). Memory stays
// flat: requests are generated as the engine asks for them; a request's shrink context is held only
// while it is in flight, and one failure per check after.
import type fc from 'fast-check';
import type { Check, Finding, Look } from '../checks/check.js';
import type { ServiceNamespaces } from '../contract/namespaces.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { UNREACHABLE, type Exchange, type ExchangeSpec, type Origin } from '../http/exchange.js';
import { generateFor, requestArbitrary, type GeneratedRequest } from './generated-requests.js';
import { shrink } from './shrink.js';

export interface GenerateOptions {
  /** Requests per operation. */
  readonly count: number;
  /** Replays a run exactly: the same seed generates the same requests in the same order. */
  readonly seed: number;
}

/** A check's failure on a generated request, shrunk. */
export interface ShrunkFailure {
  /** The generated exchange the check failed on first (generation order). */
  readonly from: string;
  /** The smallest request that still fails the check: its exchange (kept for the report). */
  readonly exchange: string;
  /** The check's findings on `exchange`, judged on its own answer. */
  readonly findings: readonly Finding[];
  /** Smaller requests taken (each failed when sent), and candidates sent and judged in all. */
  readonly steps: number;
  readonly tried: number;
  /** Set when shrinking ended before no smaller candidate failed: why. */
  readonly stopped?: string;
}

export interface GenerationSummary {
  readonly count: number;
  readonly seed: number;
  /** Generated requests handed to the engine (those no selected check judges are not sent). */
  readonly requests: number;
  /** Requests sent while shrinking. */
  readonly shrinkRequests: number;
}

/** Trials per failing check: each is one request to the target. */
export const MAX_SHRINK_TRIALS = 150;

interface Pending {
  readonly op: Operation;
  /** Position in the generated sequence: the lowest failing one is shrunk. */
  readonly order: number;
  readonly value: fc.Value<GeneratedRequest>;
}

interface FirstFailure {
  readonly pending: Pending;
  readonly exchange: Exchange;
  readonly findings: readonly Finding[];
}

export interface GenerationSettings {
  readonly namespaces: ServiceNamespaces;
  /** Sent with every request (--header): secrets, as for every other request. */
  readonly extraHeaders: Readonly<Record<string, string>>;
}

export class Generation {
  private readonly arbitraries: ReadonlyMap<Operation, fc.Arbitrary<GeneratedRequest>>;
  private readonly inFlight = new Map<string, Pending>();
  private readonly first = new Map<string, FirstFailure>();
  private handed = 0;
  private shrinkSent = 0;

  constructor(readonly options: GenerateOptions, private readonly settings: GenerationSettings, private readonly wanted: (spec: ExchangeSpec) => boolean = () => true) {
    this.arbitraries = new Map(OPERATIONS.map((op) => [op, requestArbitrary(op, settings.namespaces)]));
  }

  private spec(op: Operation, id: string, request: GeneratedRequest, title: string): ExchangeSpec {
    const origin: Origin = request.ownValues
      ? { source: 'generated', vouched: false, intent: request.intent, ownValues: request.ownValues }
      : { source: 'generated', vouched: false, intent: request.intent };
    return {
      id, title: `${title} for ${op.name}: ${request.what}`, origin, method: request.method, path: request.path,
      headers: { ...this.settings.extraHeaders, ...request.headers }, body: request.body,
    };
  }

  /** The generated requests, operation after operation in turn, as the engine asks for them. */
  *requests(): Generator<ExchangeSpec> {
    const { count, seed } = this.options;
    const streams = OPERATIONS.map((op) => generateFor(op, this.settings.namespaces, seed, count));
    let order = 0;
    for (let i = 0; i < count; i++) {
      for (const [k, op] of OPERATIONS.entries()) {
        const value = streams[k]!.next().value as fc.Value<GeneratedRequest>;
        const spec = this.spec(op, `gen.${op.key}.${i}`, value.value, `generated ${value.value.intent} request ${i}`);
        if (!this.wanted(spec)) continue;
        this.inFlight.set(spec.id, { op, order: order++, value });
        this.handed++;
        yield spec;
      }
    }
  }

  /** A generated exchange judged (its body already cut to what a report keeps): the first failure of
   *  each check, in generation order, is remembered for shrinking. */
  observe(ex: Exchange, failures: readonly (readonly [Check, readonly Finding[]])[]): void {
    const pending = this.inFlight.get(ex.id);
    if (!pending) return;
    this.inFlight.delete(ex.id);
    for (const [check, findings] of failures) {
      const had = this.first.get(check.id);
      if (!had || had.pending.order > pending.order) this.first.set(check.id, { pending, exchange: ex, findings });
    }
  }

  /** Checks that failed on a generated request, in the order given. */
  failedChecks(checks: readonly Check[]): Check[] {
    return checks.filter((c) => this.first.has(c.id));
  }

  /**
   * Shrinks each check's first failure: candidates are sent with `send` (the run's send path and
   * budget) and judged with `judge` (the check on the candidate's own answer). At most `concurrency`
   * checks shrink at once; each shrink is sequential, and no candidate is sent after `timeLimitMs`
   * (a target that answers slowly or not at all costs a known time). A candidate that could not reach
   * the target says nothing about the request: shrinking stops there. Returns each check's outcome
   * and the exchanges the report must keep (the smallest failing request and the one it started from).
   */
  async shrinkFailures(
    checks: readonly Check[], send: (spec: ExchangeSpec) => Promise<Exchange>, judge: (check: Check, ex: Exchange) => Look, concurrency: number, timeLimitMs = Infinity,
  ): Promise<Map<string, { readonly shrunk: ShrunkFailure; readonly keep: readonly Exchange[] }>> {
    const out = new Map<string, { shrunk: ShrunkFailure; keep: Exchange[] }>();
    const deadline = Date.now() + timeLimitMs;
    const queue = this.failedChecks(checks);
    const worker = async () => {
      for (let check = queue.shift(); check; check = queue.shift()) {
        const first = this.first.get(check.id)!;
        const { op, value } = first.pending;
        let n = 0;
        const c = check;
        const nothing: readonly Finding[] = [];
        const result = await shrink(this.arbitraries.get(op)!, value, async (candidate) => {
          const spec = this.spec(op, `${first.exchange.id}.shrink.${c.id}.${++n}`, candidate, `shrinking ${first.exchange.id} for ${c.id}, candidate ${n}`);
          if (Date.now() >= deadline) return { fails: false, result: { ex: first.exchange, findings: nothing }, stop: `the time given to shrinking (${Math.round(timeLimitMs / 1000)} s) was spent` };
          const ex = await send(spec);
          if (ex.error?.kind === 'not-sent') return { fails: false, result: { ex, findings: nothing }, stop: 'the run\'s request cap (--max-requests) was reached' };
          this.shrinkSent++;
          if (ex.error && UNREACHABLE.has(ex.error.kind)) return { fails: false, result: { ex, findings: nothing }, stop: `the target could not be reached (${ex.error.message})` };
          const look = judge(c, ex);
          const findings = Array.isArray(look) ? look : [];
          return { fails: findings.length > 0, result: { ex, findings } };
        }, MAX_SHRINK_TRIALS);
        const smallest = result.result?.ex ?? first.exchange;
        out.set(c.id, {
          shrunk: {
            from: first.exchange.id, exchange: smallest.id, findings: result.result?.findings ?? first.findings,
            steps: result.steps, tried: result.tried, ...(result.stopped ? { stopped: result.stopped } : {}),
          },
          keep: smallest === first.exchange ? [smallest] : [first.exchange, smallest],
        });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, queue.length)) }, worker));
    return out;
  }

  /** Generated requests handed out and not yet judged: at most what the engine has in flight. */
  get pending(): number {
    return this.inFlight.size;
  }

  summary(): GenerationSummary {
    return { count: this.options.count, seed: this.options.seed, requests: this.handed, shrinkRequests: this.shrinkSent };
  }
}
