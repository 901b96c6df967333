// The proxy's judge rests between slices of work while the forwarding thread is busy half the time
// or more (lib/traffic/judging-pace.ts): an idle-policy judge using all the spare CPU slowed
// saturating traffic by a tenth of a bare forwarder's rate on a 2-vCPU machine. Read with made
// clocks: the forwarding thread's busy ms and the wall ms are set by each test.
import { describe, expect, it } from 'vitest';
import { JudgingPace, PacedQueue, type PaceBounds } from '../lib/traffic/judging-pace.js';

const BOUNDS: PaceBounds = { heavyShare: 0.5, duty: 0.05, windowMs: 100, sliceMs: 2, maxRestMs: 500 };

/** A pace on made clocks: `at(wall, busy)` sets both before the next call. */
function made(bounds = BOUNDS) {
  let wall = 0;
  let busy = 0;
  const pace = new JudgingPace(() => busy, () => wall, bounds);
  return { pace, at: (w: number, b = busy) => { wall = w; busy = b; } };
}

describe('the proxy judge\'s pace', () => {
  it('never rests while the forwarding thread is busy less than half the time', () => {
    const { pace, at } = made();
    for (let t = 0; t <= 1000; t += 1) {
      at(t, t * 0.49);
      expect(pace.next()).toBe(0);
    }
    expect(pace.note()).toBeUndefined();
  });

  it('rests after each slice of work while it is busy half the time or more, so the judge works the duty\'s share', () => {
    const { pace, at } = made();
    at(100, 60); // 0.6 of the first window: heavy
    expect(pace.next()).toBe(0); // the slice begins
    at(101, 60.6);
    expect(pace.next()).toBe(0); // 1 ms worked: under the slice
    at(102.5, 61.5);
    // 2.5 ms worked: rest 2.5 × (1 − 0.05) / 0.05 = 47.5 ms
    expect(pace.next()).toBeCloseTo(47.5, 9);
    at(150, 90);
    expect(pace.next()).toBe(0); // a new slice
    expect(pace.rests).toBe(1);
    expect(pace.note()).toBe('while the traffic was heavy (the proxy\'s forwarding thread busy 50% of the time or more), the judge worked at most 5% of the time, so as not to slow it: it rested 1 time(s), 0.0 s in all; what waited meanwhile was judged later, or not at all once the room for it was full');
  });

  it('reads the forwarding thread\'s share once per window, and stops resting once it falls under half', () => {
    const { pace, at } = made();
    at(100, 80);
    pace.next();
    at(103, 81);
    expect(pace.next()).toBeGreaterThan(0);
    // 50 ms on, the thread was idle: still within the window read at 100, so still heavy.
    at(160, 81);
    expect(pace.next()).toBe(0); // a new slice
    at(163, 81);
    expect(pace.next()).toBeGreaterThan(0);
    // At 200 the window from 100 reads (81 − 80) / 100: light.
    at(200, 81);
    expect(pace.next()).toBe(0);
    at(210, 81);
    expect(pace.next()).toBe(0);
  });

  it('rests no longer than its bound after one long judgement', () => {
    const { pace, at } = made();
    at(100, 100);
    pace.next();
    at(400, 400);
    expect(pace.next()).toBe(500);
  });

  it('counts no waiting between exchanges as work: a slice ends when nothing is left to judge', () => {
    const { pace, at } = made();
    at(100, 100);
    pace.next();
    pace.idle();
    at(190, 190); // 90 ms later the next exchange comes: a slice begins, no rest
    expect(pace.next()).toBe(0);
    at(191, 191);
    expect(pace.next()).toBe(0);
  });

  it('owes a rewrite of the reports the same rest as a slice of judging, within the bound it is given, and says how often one was put off', () => {
    const { pace, at } = made();
    expect(pace.restAfter(500, 60_000)).toBeCloseTo(9500, 9); // 500 ms × (1 − 0.05) / 0.05
    expect(pace.restAfter(5000, 60_000)).toBe(60_000);
    at(100, 100);
    expect(pace.heavy).toBe(true);
    pace.putOff = 2;
    expect(pace.note()).toMatch(/, the judge worked at most 5% of the time, so as not to slow it: it rested 0 time\(s\), 0\.0 s in all; .*; the reports' rewrites, work too, were put off 2 time\(s\)$/);
    at(200, 100);
    expect(pace.heavy).toBe(false);
  });

  it('never says heavy when the forwarding thread\'s clock cannot be read', () => {
    let wall = 0;
    const pace = new JudgingPace(() => NaN, () => wall, BOUNDS);
    for (wall = 0; wall <= 1000; wall += 10) expect(pace.next()).toBe(0);
  });
});

describe('what waits for the proxy\'s judge', () => {
  /** A queue whose every judgement takes 1 ms of the made wall clock, the forwarding thread busy all the while. */
  function heavyQueue() {
    const { pace, at } = made();
    let wall = 100;
    at(wall, wall);
    const judged: number[] = [];
    const queue = new PacedQueue<number>((n) => { judged.push(n); wall += 1; at(wall, wall); }, pace);
    return { queue, judged };
  }

  it('is judged oldest first, a slice at a time while traffic is heavy (a rest pending after it)', () => {
    const { queue, judged } = heavyQueue();
    queue.push([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The slice began at the first; after the second 2 ms were worked: the rest comes before the third.
    expect(judged).toEqual([1, 2]);
    expect(queue.length).toBe(8);
    queue.push([11]);
    expect(judged).toEqual([1, 2]); // resting: what comes waits
    queue.finish();
  });

  it('is all judged at once, in order, when traffic ends during a rest; what comes after is judged at once', () => {
    const { queue, judged } = heavyQueue();
    queue.push([1, 2, 3, 4, 5]);
    queue.push([6]);
    queue.finish();
    expect(judged).toEqual([1, 2, 3, 4, 5, 6]);
    expect(queue.length).toBe(0);
    queue.push([7, 8, 9, 10, 11]);
    expect(judged).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('is judged at once without a pace (the judge at normal priority)', () => {
    const judged: number[] = [];
    const queue = new PacedQueue<number>((n) => judged.push(n), undefined);
    queue.push([1, 2, 3]);
    expect(judged).toEqual([1, 2, 3]);
  });
});
