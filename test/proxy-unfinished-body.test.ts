// A request body still coming when its answer was whole (the target answered before reading it) is
// not the body the client sent: it was judged as the part copied by then, so an honest client's JSON,
// cut mid-value, failed REQ-JSON-BODY. It is not recorded: the request checks that read the body skip,
// saying why, the others judge the request's head, and the answer is judged as any other.
import { createServer, type Server } from 'node:http';
import { Socket, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isSkip } from '../lib/checks/check.js';
import { ExchangeView } from '../lib/checks/exchange-view.js';
import { REQUEST_CHECKS } from '../lib/checks/requests.js';
import { findingLines } from '../lib/cli/live-judging.js';
import { DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { BODY_UNFINISHED, requestText } from '../lib/reporting/exchange-text.js';
import { Redactor } from '../lib/reporting/redact.js';
import { judgeable, startProxy, type ForwardedExchange } from '../lib/traffic/proxy.js';
import { until } from './helpers/wait.js';

const CAP = 1024 * 1024;
const BODY = '{"userName":"jdoe.support"}';
const UNFINISHED = 'the request body was still coming when its answer was whole: not recorded';

let target: Server;
let targetUrl = '';
/** The body the target read, once whole. */
let read: string | undefined;
beforeAll(async () => {
  // Answers at once, before the body is whole, and reads it to its end.
  target = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => { read = body; });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => { target.closeAllConnections(); await new Promise((r) => target.close(r)); });

it('a JSON body still coming when its answer was whole is forwarded whole, and judged as not recorded: its body checks skip saying why, its head checks and its answer are judged', async () => {
  const seen: ForwardedExchange[] = [];
  const proxy = await startProxy({ target: targetUrl, port: 0, maxBodyBytes: CAP, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex) });
  const socket = new Socket();
  try {
    let got = '';
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.connect(proxy.port, '127.0.0.1', r));
    const cut = BODY.indexOf('.');
    socket.write(`POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY.slice(0, cut)}`);
    await until(() => got.endsWith('\r\n\r\n{}') && seen.length === 1, 'the answer to reach the client whole and the exchange to be handed over');
    socket.write(BODY.slice(cut));
    await until(() => read !== undefined, 'the target to read the body whole');
    expect(read).toBe(BODY);
    const ex = judgeable(seen[0]!, CAP);
    const view = new ExchangeView(ex, { namespaces: DEFAULT_NAMESPACES });
    const looks = Object.fromEntries(REQUEST_CHECKS.filter((c) => c.appliesTo(view)).map((c) => {
      const look = c.judge(view);
      return [c.id, isSkip(look) ? look.skip : look.length ? 'fail' : 'pass'];
    }));
    expect(looks).toEqual({
      'REQ-METHOD': 'pass', 'REQ-JSON-CONTENT-TYPE': 'pass',
      ...Object.fromEntries(['REQ-JSON-BODY', 'REQ-JSON-MEMBER-NAMES', 'REQ-JSON-TYPES', 'REQ-JSON-UNKNOWN-MEMBERS', 'REQ-JSON-DUPLICATE-KEYS'].map((id) => [id, UNFINISHED])),
    });
    expect([ex.request.body, ex.response?.status, ex.response?.body.toString(), ex.error]).toEqual([undefined, 200, '{}', undefined]);
    // What the reports show of it, and its live line, say why its body was not judged.
    const redactor = new Redactor({ showPersonalData: true, secrets: [] });
    expect(requestText(ex, redactor).endsWith(`\n${BODY_UNFINISHED}`)).toBe(true);
    expect(findingLines(ex, [], redactor, true)).toEqual([`✓ ${ex.id} POST /supportstateuser: no finding (its body was still coming when its answer was whole: not judged)`]);
  } finally {
    socket.destroy();
    await proxy.close(0);
  }
});
