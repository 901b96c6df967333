// How much of the time the validating proxy's judge works while traffic is heavy. At the idle
// policy it takes only CPU no other thread wants, yet on a machine whose cores share their speed (two
// vCPUs of one host core, a shared boost budget) a busy second core slows the first: measured on a
// 2-vCPU machine under saturating load, an idle-policy process spinning cut the proxy's rate by a
// fifth, and a judge using all the spare CPU took the proxy from 0.82 to 0.72 of a bare forwarder's
// rate (the deployment behind it spent 33 → 49 µs of CPU per request). So while the forwarding thread
// wants the CPU at least HEAVY_SHARE of the time, the judge works in slices and rests between them,
// at most DUTY of the time; below that share it judges as exchanges come. What waits is judged in
// order as room allows (the room bounds it); the traffic's end judges the rest at once.

export interface PaceBounds {
  /** The forwarding thread's share of the wall time spent on a CPU or waiting for one, from which traffic is heavy. */
  readonly heavyShare: number;
  /** The judge's share of the time while traffic is heavy. */
  readonly duty: number;
  /** The forwarding thread's share is read over at least this long. */
  readonly windowMs: number;
  /** Work while heavy goes in slices of about this long, each followed by its rest. */
  readonly sliceMs: number;
  /** A rest never lasts longer (one slow judgement does not stop the judging for long). */
  readonly maxRestMs: number;
}

export const JUDGING_PACE: PaceBounds = { heavyShare: 0.5, duty: 0.03, windowMs: 250, sliceMs: 2, maxRestMs: 1000 };

/** The judge's pace: `next()` before each judgement says whether to rest first. `forwarderBusyMs`:
 *  the forwarding thread's busy clock (lib/traffic/thread-busy.ts: only differences count); `now`: ms. */
export class JudgingPace {
  private windowAt: number;
  private windowBusy: number;
  private wasHeavy = false;
  /** When the slice of work going on began (undefined: none). */
  private sliceAt: number | undefined;
  /** Rests taken, and their ms: stated in the reports. */
  rests = 0;
  restedMs = 0;
  /** Rewrites of the reports put off by their rests (the judge's count): stated in the reports. */
  putOff = 0;

  constructor(private readonly forwarderBusyMs: () => number, private readonly now: () => number, private readonly bounds: PaceBounds = JUDGING_PACE) {
    this.windowAt = now();
    this.windowBusy = forwarderBusyMs();
  }

  /** Whether traffic is heavy now: the forwarding thread's share read again once a window has passed. */
  get heavy(): boolean {
    this.read(this.now());
    return this.wasHeavy;
  }

  private read(t: number): void {
    if (t - this.windowAt < this.bounds.windowMs) return;
    const busy = this.forwarderBusyMs();
    // A clock that cannot be read (NaN) never says heavy: the judge keeps its idle policy alone.
    this.wasHeavy = (busy - this.windowBusy) / (t - this.windowAt) >= this.bounds.heavyShare;
    this.windowAt = t;
    this.windowBusy = busy;
  }

  /** Before one judgement: 0 to judge now, or the ms to rest first. */
  next(): number {
    const t = this.now();
    this.read(t);
    if (!this.wasHeavy) { this.sliceAt = undefined; return 0; }
    if (this.sliceAt === undefined) { this.sliceAt = t; return 0; }
    const worked = t - this.sliceAt;
    if (worked < this.bounds.sliceMs) return 0;
    this.sliceAt = undefined;
    const rest = this.restAfter(worked, this.bounds.maxRestMs);
    this.rests++;
    this.restedMs += rest;
    return rest;
  }

  /** The rest owed after `workedMs` of work while heavy (a rewrite of the reports' too), at most `maxMs`. */
  restAfter(workedMs: number, maxMs: number): number {
    return Math.min(maxMs, (workedMs * (1 - this.bounds.duty)) / this.bounds.duty);
  }

  /** Nothing is left to judge: the slice ends (the time until the next exchange is no work). */
  idle(): void {
    this.sliceAt = undefined;
  }

  /** The line the reports state once the judge has rested, or undefined. */
  note(): string | undefined {
    if (!this.rests && !this.putOff) return undefined;
    const { heavyShare, duty } = this.bounds;
    const reports = this.putOff ? `; the reports' rewrites, work too, were put off ${this.putOff} time(s)` : '';
    return `while the traffic was heavy (the proxy's forwarding thread busy ${Math.round(heavyShare * 100)}% of the time or more), the judge worked at most ${Math.round(duty * 100)}% of the time, so as not to slow it: it rested ${this.rests} time(s), ${(this.restedMs / 1000).toFixed(1)} s in all; what waited meanwhile was judged later, or not at all once the room for it was full${reports}`;
  }
}

/** What waits for the judge, judged oldest first at the pace's word: at once, or after a rest
 *  (without a pace, always at once). */
export class PacedQueue<T> {
  private readonly waiting: T[] = [];
  private resting: NodeJS.Timeout | undefined;
  private finished = false;

  constructor(private readonly judge: (item: T) => void, private readonly pace: JudgingPace | undefined) {}

  push(items: readonly T[]): void {
    this.waiting.push(...items);
    if (!this.resting) this.run();
  }

  /** Traffic has ended: what waits is judged now, and what comes later at once, without rests. */
  finish(): void {
    this.finished = true;
    clearTimeout(this.resting);
    this.resting = undefined;
    for (const item of this.waiting.splice(0)) this.judge(item);
  }

  get length(): number { return this.waiting.length; }

  private readonly run = (): void => {
    this.resting = undefined;
    while (this.waiting.length) {
      const rest = this.finished ? 0 : this.pace?.next() ?? 0;
      if (rest > 0) { this.resting = setTimeout(this.run, rest); return; }
      this.judge(this.waiting.shift()!);
    }
    this.pace?.idle();
  };
}
