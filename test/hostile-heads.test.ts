// Answers whose head the harness's HTTP client refuses (undici): each exchange fails naming what the
// target sent, not "connection closed … before the response was complete", which undici's own
// errors for them read as (the target closed nothing: the client did).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodySlots, createDispatcher, RequestBudget, send } from '../lib/http/send.js';
import { startRawTarget, type RawTarget } from './helpers/raw-target.js';

const RECORD = '{"userName":"jdoe"}';
const ANSWERS: Readonly<Record<string, string>> = {
  upgrade: 'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
  continue: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${RECORD.length}\r\n\r\n${RECORD}`,
  'two-lengths': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${RECORD.length}\r\nContent-Length: 5\r\n\r\n${RECORD}`,
  'length-and-chunked': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${RECORD.length}\r\nTransfer-Encoding: chunked\r\n\r\n${RECORD}`,
  'huge-trailers': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${RECORD.length.toString(16)}\r\n${RECORD}\r\n0\r\nX-Padding: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
  'huge-head': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: ${'a'.repeat(64 * 1024)}\r\nContent-Length: ${RECORD.length}\r\n\r\n${RECORD}`,
};

let target: RawTarget;
beforeAll(async () => { target = await startRawTarget((request) => ANSWERS[request.line.split(' ')[1]!.slice(1)] ?? ''); });
afterAll(() => target.close());

async function exchangeWith(answer: string) {
  const options = { timeoutMs: 30_000, maxBodyBytes: 1024 * 1024 };
  const dispatcher = createDispatcher(options);
  try {
    return await send({ id: 'login.post', title: 'x', origin: { source: 'probe', vouched: true }, method: 'POST', path: `/${answer}`, headers: { 'content-type': 'application/json' }, body: '{}' },
      target.url, { dispatcher, options, budget: new RequestBudget(), slots: new BodySlots() });
  } finally {
    await dispatcher.close();
  }
}

describe('an answer head the HTTP client refuses is named for what the target sent', () => {
  it.each([
    ['upgrade', 'a 101 (Switching Protocols) the request did not ask for: it sent no Upgrade'],
    ['two-lengths', 'a response head the HTTP parser refused after its Content-Length (a second Content-Length, Transfer-Encoding beside it, or a malformed line)'],
    ['length-and-chunked', 'a response head the HTTP parser refused after its Content-Length (a second Content-Length, Transfer-Encoding beside it, or a malformed line)'],
    ['huge-head', 'a response head or trailer section larger than 16 KiB'],
    ['huge-trailers', 'a response head or trailer section larger than 16 KiB'],
  ])('%s: no response, "%s"', async (answer, message) => {
    const ex = await exchangeWith(answer);
    expect([ex.response, ex.error]).toEqual([undefined, { kind: 'other', message }]);
  });

  // RFC 9110 15.2: a client MUST read 1xx answers it did not ask for; a target may send them. undici
  // closes the connection at a 100: the harness's limit, so the answer is not judged (never failed).
  it('continue: a 100 (Continue) first is an answer not read, kind not-read, naming RFC 9110 15.2', async () => {
    const ex = await exchangeWith('continue');
    expect([ex.response, ex.error]).toEqual([undefined, { kind: 'not-read', message: 'not judged: the target sent a 100 (Continue) first, which RFC 9110 15.2 allows unasked and the harness\'s HTTP client (undici) cannot read past' }]);
  });
});
