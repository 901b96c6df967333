// Progress of a long run, on stderr (never in a report): on a terminal, one line redrawn in place
// (exchanges judged, of how many, failures so far, rate, time left); elsewhere (CI logs) a plain line
// every few seconds. Quiet for runs that end within the first interval.
import type { Progress } from '../engine/run.js';

export interface ProgressOptions {
  /** Accounts the run will judge, when known (counted before the run). */
  readonly cases?: number;
  readonly tty: boolean;
  readonly write: (text: string) => void;
  /** Milliseconds between lines (and before the first one). */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

export class ProgressLine {
  private readonly start: number;
  private lastShown: number;
  private last: Progress = { exchanges: 0, failedExchanges: 0, sent: 0, cases: 0 };
  private drawn = false;

  constructor(private readonly options: ProgressOptions) {
    this.start = this.now();
    this.lastShown = this.start;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The line for the current state. */
  line(p: Progress = this.last): string {
    const elapsed = (this.now() - this.start) / 1000;
    const rate = elapsed > 0 ? p.exchanges / elapsed : 0;
    const total = this.options.cases;
    const accounts = total ? `, ${p.cases} of ${total} accounts (${Math.floor((100 * p.cases) / total)}%)` : '';
    const caseRate = elapsed > 0 ? p.cases / elapsed : 0;
    const left = total && caseRate > 0 ? `, about ${clock((total - p.cases) / caseRate)} left` : '';
    return `${p.exchanges} exchanges judged${accounts}, ${p.failedExchanges} with findings, ${rate.toFixed(0)}/s, ${clock(elapsed)}${left}`;
  }

  update(p: Progress): void {
    this.last = p;
    const now = this.now();
    if (now - this.lastShown < (this.options.intervalMs ?? (this.options.tty ? 200 : 5000))) return;
    if (!this.drawn && now - this.start < 2000) return; // a short run shows no progress at all
    this.lastShown = now;
    this.drawn = true;
    this.options.write(this.options.tty ? `\r\x1b[2K  ${this.line()}` : `  progress: ${this.line()}\n`);
  }

  /** Clears the redrawn line (a terminal) so the summary starts on a clean line. */
  done(): void {
    if (this.drawn && this.options.tty) this.options.write('\r\x1b[2K');
  }
}
