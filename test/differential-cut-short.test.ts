// A differential run cut short still states what it found: a difference from the legacy fails the
// gate (exit 1) as a failed MUST check does, where it had said "could not proceed" (exit 2). The cap
// is spent a comparison's three sends at a time: spent one send at a time, it left the last comparison
// without the legacy's second answer, its difference uncounted (CONFORMANT, exit 0), and blamed the
// legacy for not answering.
import { describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runDifferential } from '../lib/engine/differential.js';
import { startReference } from '../lib/reference/server.js';
import { exitCodeOf, verdictWords } from '../lib/reporting/verdict.js';

describe('a differential run cut short', () => {
  it('with differences found: INCOMPLETE, DIFFERS FROM LEGACY, exit 1; without: exit 2', () => {
    const cut = { verdict: 'incomplete' as const, differential: { differences: 9, compared: 12, inconclusive: 0 } };
    expect([verdictWords(cut), exitCodeOf(cut)]).toEqual(['INCOMPLETE, DIFFERS FROM LEGACY (9 values)', 1]);
    const none = { verdict: 'incomplete' as const, differential: { differences: 0, compared: 12, inconclusive: 0 } };
    expect([verdictWords(none), exitCodeOf(none)]).toEqual(['INCOMPLETE', 2]);
    // A problem with the run's evidence or outputs stays exit 2.
    expect(exitCodeOf({ ...cut, runProblems: ['an output could not be written'] })).toBe(2);
  });
});

describe('a differential run under --max-requests', () => {
  // 20 probes, three sends each: 60 uncapped. Under 59 the last comparison has no room for all three.
  it.each([59, 31])('under --max-requests %i: only whole comparisons are sent, the rest counted as not sent, never half a comparison left "inconclusive"', async (cap) => {
    const [legacy, candidate] = await Promise.all([startReference({}), startReference({})]);
    try {
      const r = await runDifferential({
        baseUrl: candidate.url, legacyUrl: legacy.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024,
        maxRequests: cap, concurrency: 1,
      });
      const whole = Math.floor(cap / 3);
      expect({ compared: r.compared, inconclusive: r.inconclusive, sent: r.candidate.counts.exchanges - (r.candidate.counts.notSent?.probe ?? 0) }).toEqual({ compared: whole, inconclusive: 0, sent: whole });
      expect(r.candidate.verdict).toBe('incomplete');
    } finally {
      await Promise.all([legacy.close(), candidate.close()]);
    }
  });
});

describe('a differential run whose candidate is at the legacy\'s URL', () => {
  it('names the candidate\'s exchanges as the candidate\'s, never "sent to the legacy"', async () => {
    const ref = await startReference({});
    try {
      const r = await runDifferential({ baseUrl: ref.url, legacyUrl: ref.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 30_000, maxBodyBytes: 10 * 1024 * 1024 });
      expect(r.candidate.exchanges.length).toBeGreaterThan(0);
      expect(r.candidate.exchanges.filter((x) => x.id.endsWith('.legacy') || x.title.endsWith('sent to the legacy'))).toEqual([]);
      expect(r.legacy.exchanges.every((x) => x.id.endsWith('.legacy'))).toBe(true);
      expect(r.differences).toBe(0);
    } finally {
      await ref.close();
    }
  });
});
