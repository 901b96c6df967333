// Progress of a long run: on a terminal one line redrawn in place, elsewhere a plain line every few
// seconds; nothing for a run that ends within the first interval; and never in a report (it goes to
// stderr only, through the writer it is given). The clock is a fake: nothing here waits.
import { describe, expect, it } from 'vitest';
import { ProgressLine } from '../lib/cli/progress.js';

const run = (tty: boolean, cases?: number) => {
  let now = 0;
  const written: string[] = [];
  const line = new ProgressLine({ tty, write: (t) => written.push(t), now: () => now, ...(cases ? { cases } : {}) });
  return { line, written, at: (ms: number) => { now = ms; } };
};

describe('progress', () => {
  it('a short run shows nothing', () => {
    const p = run(false);
    p.at(1500);
    p.line.update({ exchanges: 17, failedExchanges: 0, sent: 17, cases: 0 });
    p.line.done();
    expect(p.written).toEqual([]);
  });

  it('off a terminal: a plain line every 5 s, with accounts done, failures, rate and time left', () => {
    const p = run(false, 1000);
    p.at(5000);
    p.line.update({ exchanges: 1300, failedExchanges: 13, sent: 1300, cases: 250 });
    p.at(6000);
    p.line.update({ exchanges: 1500, failedExchanges: 15, sent: 1500, cases: 300 }); // within 5 s of the last line
    p.at(10_000);
    p.line.update({ exchanges: 2600, failedExchanges: 26, sent: 2600, cases: 500 });
    expect(p.written).toEqual([
      '  progress: 1300 exchanges judged, 250 of 1000 accounts (25%), 13 with findings, 260/s, 5s, about 15s left\n',
      '  progress: 2600 exchanges judged, 500 of 1000 accounts (50%), 26 with findings, 260/s, 10s, about 10s left\n',
    ]);
  });

  it('on a terminal: one line redrawn in place, cleared at the end', () => {
    const p = run(true);
    p.at(2500);
    p.line.update({ exchanges: 500, failedExchanges: 0, sent: 500, cases: 0 });
    p.line.done();
    expect(p.written).toEqual(['\r\x1b[2K  500 exchanges judged, 0 with findings, 200/s, 3s', '\r\x1b[2K']);
  });
});
