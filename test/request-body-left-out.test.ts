// A request body past the body cap is left out of what is judged (a HAR's, the proxy's copy, the
// judging reference's read), but it was sent: the checks that read a body skip on it, saying so,
// instead of judging the request as one sent without a body (REQ-SOAP-ENVELOPE failed "the request
// has no body" on a well-formed envelope) or not applying at all (a JSON body of junk past the cap
// left every JSON body check silent, and the run conformant with nothing said).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSkip } from '../lib/checks/check.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { REQUEST_CHECKS } from '../lib/checks/requests.js';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import type { Exchange } from '../lib/http/exchange.js';
import { harExchanges } from '../lib/traffic/har.js';
import { judgeable, startProxy, type ForwardedExchange } from '../lib/traffic/proxy.js';
import { startRawTarget } from './helpers/raw-target.js';

const CAP = 1024;
const LEFT_OUT = 'the request body went past the body cap and was left out';
const BODY_CHECKS = ['REQ-JSON-BODY', 'REQ-JSON-MEMBER-NAMES', 'REQ-JSON-TYPES', 'REQ-JSON-UNKNOWN-MEMBERS', 'REQ-JSON-DUPLICATE-KEYS'];
const SOAP_BODY_CHECKS = ['REQ-SOAP-ENVELOPE', 'REQ-SOAP-BODY', 'REQ-SOAP-EMPTY'];
const ENVELOPE = (pad: string) => `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><x>${pad}</x></s:Header><s:Body><ImpersonateLogoutRequest xmlns="${DEFAULT_NAMESPACES.request}"/></s:Body></s:Envelope>`;

/** Each request check that applies to the exchange, and what it found: "pass", "fail" or its skip reason. */
function looks(ex: Exchange): Record<string, string> {
  const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
  return Object.fromEntries(REQUEST_CHECKS.filter((c) => c.appliesTo(view)).map((c) => {
    const look = c.judge(view);
    return [c.id, isSkip(look) ? look.skip : look.length ? 'fail' : 'pass'];
  }));
}
const expected = (headerChecks: string[], bodyChecks: string[]) =>
  Object.fromEntries([...headerChecks.map((id) => [id, 'pass']), ...bodyChecks.map((id) => [id, LEFT_OUT])]);

const work = mkdtempSync(join(tmpdir(), 'body-left-out-'));
const entry = (url: string, headers: Record<string, string>, postData: object) => ({
  startedDateTime: '2026-01-01T00:00:00.000Z', time: 1,
  request: { method: 'POST', url, httpVersion: 'HTTP/1.1', headers: Object.entries(headers).map(([name, value]) => ({ name, value })), postData },
  response: { status: 0, statusText: '', httpVersion: 'HTTP/1.1', headers: [], content: { size: 0, mimeType: '' } },
});

describe('a request body past the cap: its body checks skip, saying so', () => {
  it('from a HAR: a JSON text, a form parameter and a SOAP envelope past the cap', async () => {
    const file = join(work, 'big.har');
    const json = { 'Content-Type': 'application/json' };
    writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [
      entry('http://h/supportstateuser', json, { mimeType: 'application/json', text: `x${'y'.repeat(2 * CAP)}` }),
      entry('http://h/supportstateuser', json, { mimeType: 'application/x-www-form-urlencoded', params: [{ name: 'userName', value: 'a' }, { name: 'searchValues', value: 'z'.repeat(2 * CAP) }] }),
      entry('http://h/soap11', { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '"ImpersonateLogoutRequest"' }, { mimeType: 'text/xml', text: ENVELOPE('a'.repeat(2 * CAP)) }),
    ] } }));
    const exchanges: Exchange[] = [];
    for await (const ex of harExchanges(file, CAP)) exchanges.push(ex);
    expect(exchanges.map((e) => [e.request.body, e.request.bodyLeftOut])).toEqual([[undefined, true], [undefined, true], [undefined, true]]);
    expect(looks(exchanges[0]!)).toEqual(expected(['REQ-METHOD', 'REQ-JSON-CONTENT-TYPE'], BODY_CHECKS));
    expect(looks(exchanges[1]!)).toEqual(expected(['REQ-METHOD', 'REQ-JSON-CONTENT-TYPE'], BODY_CHECKS));
    expect(looks(exchanges[2]!)).toEqual(expected(['REQ-METHOD', 'REQ-SOAP-CONTENT-TYPE', 'REQ-SOAP-ACTION'], SOAP_BODY_CHECKS));
  });

  it('through the proxy: the body is forwarded whole, and judged as left out', async () => {
    const target = await startRawTarget(() => 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    const seen: ForwardedExchange[] = [];
    const proxy = await startProxy({ target: target.url, port: 0, maxBodyBytes: CAP, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex) });
    try {
      const body = `x${'y'.repeat(2 * CAP)}`;
      const r = await fetch(`${proxy.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status).toBe(200);
      await r.text();
      expect(target.requests.at(-1)?.body.toString()).toBe(body);
      const ex = judgeable(seen.at(-1)!, CAP);
      expect([ex.request.body, ex.request.bodyLeftOut]).toEqual([undefined, true]);
      expect(looks(ex)).toEqual(expected(['REQ-METHOD', 'REQ-JSON-CONTENT-TYPE'], BODY_CHECKS));
    } finally {
      await proxy.close(0);
      await target.close();
    }
  });
});

describe('the judging reference and a request body past its cap (answered 413)', () => {
  let judging: Awaited<ReturnType<typeof startJudgingReference>>;
  beforeAll(async () => { judging = await startJudgingReference({ reportDir: mkdtempSync(join(work, 'judging-')), print: () => undefined, reports: new Set(['summary']), maxBodyBytes: CAP }); });
  afterAll(async () => { await judging.close(); });

  it('its reports say the body checks skipped it as left out; the headers are judged', async () => {
    const r = await fetch(`${judging.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `x${'y'.repeat(2 * CAP)}` });
    expect(r.status).toBe(413);
    await r.text();
    const written = await judging.report();
    const byId = new Map(written.report.checks.map((c) => [c.id, [c.status, c.message]]));
    expect(BODY_CHECKS.map((id) => [id, ...byId.get(id)!])).toEqual(BODY_CHECKS.map((id) => [id, 'skip', LEFT_OUT]));
    expect(byId.get('REQ-JSON-CONTENT-TYPE')).toEqual(['pass', 'passed on 1 exchange']);
  });
});
