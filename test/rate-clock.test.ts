// --rate holds an exchange back before it is sent; its time limits start when it is let through.
// The wait is made on a controlled clock (Date.now, which the deadline reads), not in wall time: the
// budget below moves the clock ten exchange-lengths ahead before it lets the request go.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BodySlots, createDispatcher, PHASES_PER_EXCHANGE, RequestBudget, send } from '../lib/http/send.js';
import { startReference, type RunningReference } from '../lib/reference/server.js';

const TIMEOUT_MS = 30_000; // generous: only the controlled clock may exceed it
let offset = 0;

/** A budget whose wait for the next slot takes ten whole exchange deadlines on the controlled clock. */
class SlowBudget extends RequestBudget {
  override async take(): Promise<boolean> {
    offset += 10 * PHASES_PER_EXCHANGE * TIMEOUT_MS;
    return super.take();
  }
}

let ref: RunningReference;
beforeAll(async () => { ref = await startReference(); });
afterAll(async () => { await ref.close(); });
afterEach(() => { vi.restoreAllMocks(); offset = 0; });

describe('--rate and the time limits', () => {
  it('an exchange held back by the rate longer than its whole deadline is still sent and answered in full', async () => {
    const real = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => real() + offset);
    const options = { timeoutMs: TIMEOUT_MS, maxBodyBytes: 1 << 20 };
    const dispatcher = createDispatcher(options);
    try {
      const ex = await send({ id: 'login.post', title: 'login', origin: { source: 'probe', vouched: true }, method: 'POST', path: '/supportstateuser',
        headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"userName":"jdoe.support"}' },
      ref.url, { dispatcher, options, budget: new SlowBudget(), slots: new BodySlots() });
      expect(offset).toBe(10 * PHASES_PER_EXCHANGE * TIMEOUT_MS); // the clock did move past a whole deadline while held
      expect(ex.error).toBeUndefined();
      expect(ex.response?.status).toBe(200);
    } finally {
      await dispatcher.close();
    }
  });
});
