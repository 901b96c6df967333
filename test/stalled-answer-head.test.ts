// An answer whose head came but whose body then stalled, dripped past the phase limit or was cut off
// by a closed connection kept no head: the checks of the head skipped it and the reports said
// "no response: …" though its status line and fields had come. It keeps its head now, as an answer
// past the body cap does: the checks of the head judge it, and the words say why the body is missing.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import type { Exchange } from '../lib/http/exchange.js';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';
import { responseText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';

type Mode = 'stall' | 'drip' | 'reset';
const HEAD = { 'content-type': 'application/json', allow: 'GET, OPTIONS' };
const answers: Record<Mode, (res: ServerResponse) => void> = {
  stall: (res) => { res.writeHead(200, 'OK', HEAD); res.write('{"userName":'); },
  // Never idle for long, never complete: the whole-body limit decides (or, late on a loaded machine, the stall limit).
  drip: (res) => { res.writeHead(200, 'OK', HEAD); const t = setInterval(() => res.write(' '), 20); res.on('close', () => clearInterval(t)); },
  reset: (res) => { res.writeHead(200, 'OK', { ...HEAD, 'content-length': '5000' }); res.write('{"userName":"x",', () => res.socket?.destroy()); },
};
/** The limit each mode is sent under: time decides a stall and a drip, never a reset. */
const TIMEOUT_MS: Record<Mode, number> = { stall: 300, drip: 300, reset: 30_000 };
const BODY_LATE = /^response body (stalled for|not complete within) 0\.3 s$/;
const WHY: Record<Mode, RegExp> = { stall: BODY_LATE, drip: BODY_LATE, reset: /^connection closed by 127\.0\.0\.1:\d+ before the response was complete$/ };

describe('an answer whose head came and whose body did not come whole', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => { req.resume(); answers[req.url!.slice(1) as Mode](res); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

  async function sendTo(mode: Mode): Promise<Exchange> {
    const options = { timeoutMs: TIMEOUT_MS[mode], maxBodyBytes: 1024 * 1024 };
    const dispatcher = createDispatcher(options);
    try {
      return await send({ id: 'options', title: 'x', origin: { source: 'probe', vouched: true }, method: 'OPTIONS', path: `/${mode}`, headers: {} },
        base, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
    } finally {
      await dispatcher.destroy();
    }
  }

  for (const mode of ['stall', 'drip', 'reset'] as const) {
    it(`${mode}: keeps its status line and fields for the checks of the head, and says why the body is missing, not "no response"`, async () => {
      const ex = await sendTo(mode);
      expect([ex.response, ex.answerHead?.status, ex.answerHead?.reason, ex.answerHead?.headers.allow]).toEqual([undefined, 200, 'OK', 'GET, OPTIONS']);
      expect(ex.error?.message).toMatch(WHY[mode]);
      const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
      expect([view.head().ok, view.unjudgeableBy({ side: 'head' })]).toEqual([true, undefined]);
      expect(view.response()).toEqual({ ok: false, reason: ex.error!.message });
      const shown = responseText(ex, new Redactor({ showPersonalData: false, secrets: [] }).scope());
      expect(shown).toMatch(/^HTTP 200 OK\n[^]*\nallow: GET, OPTIONS\n[^]*\n\n\(the body did not come whole: [^)]+\)$/);
    }, 60_000);
  }
});
