// The judging reference judges a client by every header it sent: past Node's default of 2 000 kept
// headers (whose parser still frames the body by a header it does not list), and each repeat of one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgingReference, type JudgingReference } from '../lib/cli/judging-reference.js';
import { SOAP11_ENVELOPE, DEFAULT_NAMESPACES } from '../lib/contract/namespaces.js';
import { failedIn } from './helpers/client-requests.js';
import { rawExchange } from './helpers/raw-target.js';

/** 2 000 empty headers: about 10 kB, inside Node's 16 KiB bound on a request's head. */
const FILLER = 'x-filler:\r\n'.repeat(2000);

const request = (path: string, head: string, body: string): string =>
  `POST ${path} HTTP/1.1\r\nhost: judging.test\r\nconnection: close\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

const LOGIN = '{"userName":"jdoe.support","searchValues":"x"}';
const LOGOUT = `<s:Envelope xmlns:s="${SOAP11_ENVELOPE}"><s:Body><ImpersonateLogoutRequest xmlns="${DEFAULT_NAMESPACES.request}"/></s:Body></s:Envelope>`;

describe('the judging reference reads every header a client sent', () => {
  let judging: JudgingReference;
  const lines: string[] = [];
  beforeAll(async () => { judging = await startJudgingReference({ reportDir: '/nonexistent-never-written', print: (l) => lines.push(l) }); });
  afterAll(() => judging.close());

  const judged = async (bytes: string): Promise<{ status: string; failed: string[]; lines: string[] }> => {
    const from = lines.length;
    const answer = await rawExchange(judging.url, bytes);
    return { status: answer.split(' ')[1] ?? '', failed: failedIn(lines.slice(from)), lines: lines.slice(from) };
  };

  it('a JSON login whose Content-Type comes after 2 000 other headers: answered 200 with no finding', async () => {
    const got = await judged(request('/supportstateuser', `${FILLER}content-type: application/json\r\n`, LOGIN));
    expect(got.lines).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/supportstateuser: no finding$/)]);
    expect(got.status).toBe('200');
  });

  it('a SOAP logout whose SOAPAction comes after 2 000 other headers: no REQ-SOAP-ACTION finding', async () => {
    const got = await judged(request('/soap11', `content-type: text/xml; charset=utf-8\r\n${FILLER}soapaction: "ImpersonateLogoutRequest"\r\n`, LOGOUT));
    expect(got.failed).toEqual([]);
    expect(got.status).toBe('200');
  });

  it('the same login without its Content-Type after the 2 000 headers fails REQ-JSON-CONTENT-TYPE', async () => {
    const got = await judged(request('/supportstateuser', FILLER, LOGIN));
    expect(got.failed).toEqual(['REQ-JSON-CONTENT-TYPE']);
  });

  it('a head past Node\'s 16 KiB bound: 431 in one line, nothing judged', async () => {
    const got = await judged(request('/supportstateuser', `x-big: ${'b'.repeat(20_000)}\r\ncontent-type: application/json\r\n`, LOGIN));
    expect(got.status).toBe('431');
    expect(got.lines).toEqual([]);
  });

  it('a Content-Type sent twice is judged as both values (JSON and form-encoded): REQ-JSON-CONTENT-TYPE', async () => {
    const got = await judged(request('/supportstateuser', 'content-type: application/json\r\ncontent-type: application/x-www-form-urlencoded\r\n', LOGIN));
    expect(got.failed).toEqual(['REQ-JSON-CONTENT-TYPE']);
  });
});
