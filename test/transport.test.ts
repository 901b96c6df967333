// Transport pieces with no network to exercise them here: error classification (a connect timeout
// cannot be provoked in this sandbox), Retry-After, and the request rate and cap (fake clock).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Dispatcher } from 'undici';
import { BodySlots, describeError, retryAfterMs, RequestBudget, send } from '../lib/http/send.js';

const url = new URL('https://svc.example.com/supportstateuser');
const opts = { timeoutMs: 2500, maxBodyBytes: 10 * 1024 * 1024 };
const err = (code: string, cause?: string) => Object.assign(new Error(`boom ${code}`), { code, ...(cause ? { cause: { code: cause, message: `cause ${cause}` } } : {}) });

describe('describeError', () => {
  it.each([
    [err('UND_ERR_CONNECT_TIMEOUT'), 'connect-timeout', 'no connection to svc.example.com:443 within 2.5 s'],
    [err('UND_ERR_HEADERS_TIMEOUT'), 'headers-timeout', 'no response headers within 2.5 s'],
    [err('UND_ERR_SOCKET', 'ECONNRESET'), 'reset', 'connection closed by svc.example.com:443 before the response was complete'],
    [err('ECONNREFUSED'), 'refused', 'connection refused by svc.example.com:443'],
    [err('ENOTFOUND'), 'dns', 'host not found: svc.example.com'],
    [err('CERT_HAS_EXPIRED'), 'tls', 'TLS failure with svc.example.com:443: boom CERT_HAS_EXPIRED'],
    [err('x', 'DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls', 'TLS failure with svc.example.com:443: cause DEPTH_ZERO_SELF_SIGNED_CERT'],
    [err('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls', 'TLS failure with svc.example.com:443: boom ERR_TLS_CERT_ALTNAME_INVALID'],
    [err('EWHATEVER'), 'other', 'EWHATEVER: boom EWHATEVER'],
    [Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError', code: 23 }), 'aborted', 'no complete response within 7.5 s'],
  ])('%s -> %s', (e, kind, message) => {
    expect(describeError(e, url, opts)).toEqual({ kind, message });
  });
});

describe('retryAfterMs', () => {
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs('Sat, 21 Nov 2026 20:00:05 GMT', Date.parse('Sat, 21 Nov 2026 20:00:00 GMT'))).toBe(5000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('RequestBudget', () => {
  afterEach(() => { vi.useRealTimers(); });

  it('spaces requests by 1/rate seconds', async () => {
    vi.useFakeTimers();
    const budget = new RequestBudget(Infinity, 10);
    const started: number[] = [];
    const t0 = Date.now();
    const all = Promise.all([0, 1, 2, 3].map(async () => { await budget.take(); started.push(Date.now() - t0); }));
    await vi.advanceTimersByTimeAsync(1000);
    await all;
    expect(started).toEqual([0, 100, 200, 300]);
  });

  it('refuses past the cap, counting what it let through', async () => {
    const budget = new RequestBudget(2);
    expect([await budget.take(), await budget.take(), await budget.take()]).toEqual([true, true, false]);
    expect(budget.count).toBe(2);
  });
});

describe('send: the whole exchange within its limit', () => {
  // A target that never answers (a dispatcher that takes the request and says nothing): the
  // exchange's own deadline, three phase limits, ends it with the line every other abort gets.
  it('a request never answered ends as "no complete response within" three phase limits', async () => {
    const never = {
      dispatch(_opts: unknown, handler: Dispatcher.DispatchHandler) {
        const c = { abort: (reason: Error) => handler.onResponseError?.(c as never, reason), pause() {}, resume() {}, paused: false, aborted: false, reason: null };
        handler.onRequestStart?.(c as never, {});
        return true;
      },
    } as unknown as Dispatcher;
    const ex = await send({ id: 'never.1', title: 'never', origin: { source: 'probe', vouched: true }, method: 'GET', path: '/supportstateuser', headers: {} },
      'http://never.test', { dispatcher: never, options: { timeoutMs: 20, maxBodyBytes: 1024 }, budget: new RequestBudget(), slots: new BodySlots() });
    expect(ex.error).toEqual({ kind: 'aborted', message: 'no complete response within 0.06 s' });
  });
});
