// Misbehaving targets: each ends, within its time limits, with the affected checks failing for a
// one-line reason and every other check still judged. Run through the engine; hostile-cli.test.ts
// covers what the CLI adds (exit codes, memory, TLS, proxies).
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { runConformance, type RunResult } from '../lib/engine/run.js';
import { startHostile, type HostileMode } from './helpers/hostile.js';

// Each route is probed twice (plain, and offering gzip, deflate and br): a message names the first
// exchange that failed and counts the other.
const expectations: [HostileMode, string, RegExp][] = [
  ['silent', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): no response: no response headers within 1\.5 s \(\+1 more\)$/],
  ['stall-body', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): response body (stalled for|not complete within) 1\.5 s \(\+1 more\)$/],
  ['drip', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): response body not complete within 1\.5 s \(\+1 more\)$/],
  ['reset', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): connection closed by 127\.0\.0\.1:\d+ before the response was complete \(\+1 more\)$/],
  ['redirect-loop', 'ROUTE-LOGIN-POST', /^login\.post: status 302, expected 200/],
  ['huge', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): response body exceeded the 10 MiB cap \(\+1 more\)$/],
  ['invalid-utf8', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): the body is not valid UTF-8 \(\+1 more\)$/],
  ['truncated-json', 'ROUTE-CONFIRM-POST', /^confirm\.post: the body is not valid JSON: /],
  ['malformed-xml', 'ROUTE-SOAP-POST', /^logout\.(?:soap|compressed): the body is not well-formed XML \(line 1, column \d+: unclosed tag: UserDetailsResponse\) \(\+1 more\)$/],
  ['doctype', 'ROUTE-SOAP-POST', /DOCTYPE; SOAP 1\.1 forbids it and it is not read/],
  ['billion-laughs', 'ROUTE-SOAP-POST', /DOCTYPE; SOAP 1\.1 forbids it and it is not read/],
  ['external-entity', 'ROUTE-SOAP-POST', /DOCTYPE; SOAP 1\.1 forbids it and it is not read/],
  ['html-error', 'ROUTE-LOGIN-REPLY', /^login\.reply: status 500, expected 200 \(\+1 more\)$/],
  ['wrong-media-type', 'ROUTE-LOGIN-POST', /^login\.(?:post|compressed): Content-Type "text\/html", expected application\/json \(\+1 more\)$/],
  ['unavailable', 'ROUTE-SOAP-POST', /^logout\.soap: status 503, expected 200/],
];

/** The modes whose subject is time (a silent, stalled or dripping target) run under a 1.5 s limit;
 *  every other mode must end by what it sends, never by its time, so a loaded machine must not turn
 *  it into a timeout: a limit generous enough that time never decides. */
const TIME_BOUND: ReadonlySet<HostileMode> = new Set(['silent', 'stall-body', 'drip']);
const timeoutOf = (mode: HostileMode) => (TIME_BOUND.has(mode) ? 1500 : 60_000);

const runs = new Map<HostileMode, RunResult>();
beforeAll(async () => {
  await Promise.all([...expectations.map(([m]) => m), 'retry-after' as const].map(async (mode) => {
    const target = await startHostile(mode);
    try {
      runs.set(mode, await runConformance({
        baseUrl: target.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {},
        timeoutMs: timeoutOf(mode), maxBodyBytes: 10 * 1024 * 1024, concurrency: 32,
      }));
    } finally {
      await target.close();
    }
  }));
});

describe('hostile targets', () => {
  for (const [mode, id, message] of expectations) {
    it(`${mode}: ${id} fails for one stated reason; every check is still judged in one line`, () => {
      const run = runs.get(mode)!;
      expect(run.verdict).toBe('non-conformant');
      expect(run.results.find((r) => r.check.id === id)?.message).toMatch(message);
      for (const r of run.results) expect(r.message, r.check.id).not.toMatch(/\n/);
    });
  }

  it('wrong-media-type: the rest of the run goes on (the records are still judged, and pass)', () => {
    const run = runs.get('wrong-media-type')!;
    const status = (id: string) => run.results.find((r) => r.check.id === id)?.status;
    expect([status('JSON-DATETIME'), status('SOAP-ORDER'), status('JSON-GUID')]).toEqual(['pass', 'pass', 'pass']);
  });

  it('429 with Retry-After is honoured: every exchange retried once, the run conformant', () => {
    const run = runs.get('retry-after')!;
    expect(run.verdict).toBe('conformant');
    expect(run.exchanges.every((e) => e.attempts === 2)).toBe(true);
  });
});
