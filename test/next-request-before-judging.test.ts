// An answer gives its place to the next request before it is judged (lib/engine/run.ts): the target
// works on that request while this thread judges, rather than waiting idle for it. The pump lets a
// task give its place early, and never keeps more than `limit + released` tasks alive.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkById } from '../lib/checks/catalogue.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { accountRequests } from '../lib/engine/accounts.js';
import { pump, runConformance } from '../lib/engine/run.js';
import type { ExchangeSpec } from '../lib/http/exchange.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';

let reference: RunningReference;
beforeAll(async () => { reference = await startReference({}); });
afterAll(async () => { await reference.close(); });

/** An Agent that notes each request it is handed, by its account. */
class Noting extends Agent {
  constructor(private readonly events: string[]) { super(); }
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.events.push(`send ${/"userName":"([^"]+)"/.exec(String(opts.body))?.[1]}`);
    return super.dispatch(opts, handler);
  }
}

describe('the next request before the judging', () => {
  it('with one request in flight, each account\'s request is handed to the client before the answer to the one before it is judged', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'next-request-')), 'accounts.jsonl');
    writeFileSync(file, ['u1', 'u2', 'u3'].map((u) => `${JSON.stringify({ SupportStateUserLoginRequest: { userName: u, searchValues: 's' } })}\n`).join(''));
    // Read first, so that the next request never waits for the file.
    const specs: ExchangeSpec[] = [];
    for await (const spec of accountRequests(file, {})) specs.push(spec);
    const events: string[] = [];
    const dispatcher = new Noting(events);
    try {
      const result = await runConformance({
        baseUrl: reference.url, namespaces: DEFAULT_NAMESPACES, values: {}, extraHeaders: {}, timeoutMs: 60_000, maxBodyBytes: 10 * 1024 * 1024,
        probes: false, cases: specs, checks: [checkById.get('JSON-GUID')!], concurrency: 1, dispatcher,
        observe: (ex) => events.push(`judged ${/"userName":"([^"]+)"/.exec(String(ex.request.body))?.[1]}`),
      });
      expect(result.counts.exchanges).toBe(3);
    } finally {
      await dispatcher.close();
    }
    expect(events).toEqual(['send u1', 'send u2', 'judged u1', 'send u3', 'judged u2', 'judged u3']);
  });

  it('a task that gives its place lets the next item start; at most `released` tasks do so at once, the others keep theirs', async () => {
    const started: number[] = [];
    let alive = 0;
    let most = 0;
    const ends = new Map<number, () => void>();
    const gave = new Map<number, boolean>();
    const done = pump([1, 2, 3, 4], 1, async (n, release) => {
      started.push(n);
      most = Math.max(most, ++alive);
      gave.set(n, release());
      await new Promise<void>((resolve) => ends.set(n, resolve));
      alive--;
    }, 2);
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    await settle();
    // 1 and 2 gave their places (two at most): 3 started and keeps its place, so 4 waits.
    expect(started).toEqual([1, 2, 3]);
    expect([...gave]).toEqual([[1, true], [2, true], [3, false]]);
    ends.get(3)!();
    await settle();
    // 3's end freed the one place: 4 runs, and cannot give its place while 1 and 2 run on.
    expect(started).toEqual([1, 2, 3, 4]);
    expect(gave.get(4)).toBe(false);
    ends.get(1)!();
    ends.get(2)!();
    ends.get(4)!();
    await done;
    expect(most).toBe(3);
  });
});
