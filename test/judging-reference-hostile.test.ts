// Hostile clients of the reference and the judging reference: a request Node's parser accepts but the
// reference cannot read as sent, a method or a head Node refuses without a word, and a huge value in
// a request, each answered in one line (or printed in a bounded one) while the server keeps serving.
import { mkdtempSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_ROUTE, startJudgingReference, type JudgingReference } from '../lib/cli/judging-reference.js';
import { CATALOGUE } from '../lib/checks/catalogue.js';
import { findingLines, LINES_PER_CHECK } from '../lib/cli/live-judging.js';
import { startReference } from '../lib/reference/server.js';
import { Redactor } from '../lib/reporting/redact.js';
import { MAX_MESSAGE } from '../lib/reporting/report.js';
import { rawExchange } from './helpers/raw-target.js';

const LOGIN = '{"userName":"jdoe.support","searchValues":"x"}';
const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
const head = (lines: string) => `POST /supportstateuser HTTP/1.1\r\nhost: judging.test\r\nconnection: close\r\ncontent-type: application/json\r\n${lines}\r\n`;

describe('the judging reference against hostile clients', () => {
  let judging: JudgingReference;
  const lines: string[] = [];
  beforeAll(async () => { judging = await startJudgingReference({ reportDir: '/nonexistent-never-written', print: (l) => lines.push(l) }); });
  afterAll(() => judging.close());

  const sent = async (bytes: string): Promise<{ answer: string; lines: string[] }> => {
    const from = lines.length;
    const answer = await rawExchange(judging.url, bytes);
    return { answer, lines: lines.slice(from) };
  };

  it('a 900 000-character value in a request prints one finding line, cut to the reports\' bound, naming the check and the member', async () => {
    const body = `{"recoveryToken":"rt-1","verifyEmail":"a@example.org","ownerId":"${'7'.repeat(900_000)}","isForMM":false}`;
    const got = await sent(`POST /user/confirmemail HTTP/1.1\r\nhost: judging.test\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
    expect(got.answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(got.lines).toHaveLength(1);
    expect(got.lines[0]).toMatch(/^✗ REQ-JSON-TYPES \[MUST\] client\.\d+ POST \/user\/confirmemail: "7{50,}…/);
    expect(got.lines[0]).toMatch(/ at \$\.ownerId$/);
    expect(got.lines[0]!.length).toBeLessThanOrEqual(MAX_MESSAGE);
  });

  it('12 unknown members of 1 000 characters: 10 lines within 400 characters, each with its reason and its path cut as the reports cut it, and one saying 2 more', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `N${String(i).padStart(2, '0')}${'a'.repeat(997)}`);
    const body = `{"userName":"jdoe.support",${names.map((n) => `"${n}":1`).join(',')}}`;
    const got = await sent(`${head(`content-length: ${body.length}\r\n`)}${body}`);
    expect(got.lines).toHaveLength(LINES_PER_CHECK + 1);
    for (const l of got.lines) expect(l.length).toBeLessThanOrEqual(MAX_MESSAGE);
    for (const l of got.lines.slice(0, LINES_PER_CHECK)) {
      expect(l).toMatch(/^✗ REQ-JSON-UNKNOWN-MEMBERS \[SHOULD\] client\.\d+ POST \/supportstateuser: "N\d\da+…" \(1,000 characters\) is not a member of SupportStateUserLoginRequest at \$\.N\d\da{29}…\(956 characters cut\)…a{12}$/);
    }
    expect(got.lines.at(-1)).toMatch(/: and 2 more finding\(s\) of this check here \(the reports count them all\)$/);
  });

  it('a Content-Type of 15 014 characters prints a line that states what is wrong with it, the value cut with its length', async () => {
    const type = `text/plain; x=${'a'.repeat(15_000)}`;
    const got = await sent(`POST /supportstateuser HTTP/1.1\r\nhost: judging.test\r\nconnection: close\r\ncontent-type: ${type}\r\ncontent-length: ${LOGIN.length}\r\n\r\n${LOGIN}`);
    expect(got.lines).toContainEqual(expect.stringMatching(/^✗ REQ-JSON-CONTENT-TYPE \[MUST\] client\.\d+ POST \/supportstateuser: Content-Type "text\/plain; x=a{100,}…" \(15,014 characters\), expected application\/json$/));
  });

  it('a request of 100 unknown members prints 10 lines of REQ-JSON-UNKNOWN-MEMBERS and one saying 90 more, not 100', async () => {
    const body = `{"userName":"jdoe.support",${Array.from({ length: 100 }, (_, i) => `"extra${i}":1`).join(',')}}`;
    const got = await sent(`${head(`content-length: ${body.length}\r\n`)}${body}`);
    expect(got.answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(got.lines).toHaveLength(LINES_PER_CHECK + 1);
    expect(got.lines.slice(0, LINES_PER_CHECK).every((l) => / "extra\d+" is not a member of SupportStateUserLoginRequest at \$\.extra\d+$/.test(l))).toBe(true);
    expect(got.lines.at(-1)).toMatch(/^✗ REQ-JSON-UNKNOWN-MEMBERS \[SHOULD\] client\.\d+ POST \/supportstateuser: and 90 more finding\(s\) of this check here \(the reports count them all\)$/);
  });

  it('a body past the cap: 413, and its line says the body was not judged (it read "no finding" alone)', async () => {
    const body = `{"userName":"jdoe.support","searchValues":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const got = await sent(`${head(`content-length: ${body.length}\r\n`)}${body}`);
    expect(got.answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(got.lines).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/supportstateuser: no finding \(its body went past the body cap: not judged\)$/)]);
  });

  it('Transfer-Encoding: gzip, chunked over a plain body: 501 in one line naming the coding, no record, nothing judged', async () => {
    const got = await sent(`${head('transfer-encoding: gzip, chunked\r\n')}${chunked(LOGIN)}`);
    const [status, ...rest] = got.answer.split('\r\n');
    expect(status).toBe('HTTP/1.1 501 Not Implemented');
    expect(rest.at(-1)).toBe('Not Implemented: the transfer coding "gzip" is not supported; send the body as it is, or chunked');
    expect(got.lines).toEqual([]);
  });

  it('Transfer-Encoding: chunked (any case) is read as ever: 200, judged with no finding', async () => {
    const got = await sent(`${head('transfer-encoding: Chunked\r\n')}${chunked(LOGIN)}`);
    expect(got.answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(got.lines).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/supportstateuser: no finding$/)]);
  });

  it('CONNECT gets a one-line 405 and its connection closed (Node closed it without a word); the next request is answered', async () => {
    const got = await sent('CONNECT 127.0.0.1:22 HTTP/1.1\r\nhost: 127.0.0.1:22\r\n\r\n');
    const [status, ...rest] = got.answer.split('\r\n');
    expect(status).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(rest.at(-1)).toBe('Method Not Allowed: CONNECT is not served here (the reference is no proxy)');
    expect(got.lines).toEqual([]);
    const next = await sent(`${head(`content-length: ${LOGIN.length}\r\n`)}${LOGIN}`);
    expect(next.answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });

  it('an HTTP/1.1 request without Host: 400 in one line saying so (Node wrote an empty 400), nothing judged', async () => {
    const got = await sent(`POST /supportstateuser HTTP/1.1\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${LOGIN.length}\r\n\r\n${LOGIN}`);
    const [status, ...rest] = got.answer.split('\r\n');
    expect(status).toBe('HTTP/1.1 400 Bad Request');
    expect(rest.at(-1)).toBe('Bad Request: an HTTP/1.1 request names its Host');
    expect(got.lines).toEqual([]);
  });

  it('an HTTP/1.0 request without Host is answered as ever: 200, judged with no finding', async () => {
    const got = await sent(`POST /supportstateuser HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${LOGIN.length}\r\n\r\n${LOGIN}`);
    expect(got.answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(got.lines).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/supportstateuser: no finding$/)]);
  });

  it('Expect: 200-ok gets 417 in one line naming the expectation (Node wrote an empty 417), nothing judged', async () => {
    const got = await sent(`${head(`expect: 200-ok\r\ncontent-length: ${LOGIN.length}\r\n`)}${LOGIN}`);
    const [status, ...rest] = got.answer.split('\r\n');
    expect(status).toBe('HTTP/1.1 417 Expectation Failed');
    expect(rest.at(-1)).toBe('Expectation Failed: only "100-continue" is met, not "200-ok"');
    expect(got.lines).toEqual([]);
  });
});

describe('a live finding line of the longest parts a client can make', () => {
  it('a 2 000-character request path, the longest check id and a finding at a 1 000-character name: each line within 400 characters, the reason and the count of findings kept', () => {
    const check = CATALOGUE.reduce((a, c) => (c.id.length + c.level.length > a.id.length + a.level.length ? c : a));
    const name = `N${'a'.repeat(999)}`;
    const finding = { path: `$.${name}`, message: `"${name}" is not a member of SupportStateUserLoginRequest` };
    const ex = {
      id: 'proxy.123456789', title: 'a client\'s', origin: { source: 'proxy' as const, vouched: false },
      request: { method: 'POST', url: `http://judging.test/${'p'.repeat(2000)}`, headers: {} },
      startedAt: new Date(0).toISOString(), durationMs: 1,
    };
    const lines = findingLines(ex, [[check, Array.from({ length: LINES_PER_CHECK + 3 }, () => finding)]], new Redactor({ showPersonalData: true, secrets: [] }), false);
    expect(lines).toHaveLength(LINES_PER_CHECK + 1);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(MAX_MESSAGE);
    expect(lines[0]).toMatch(new RegExp(`^✗ ${check.id} \\[${check.level}\\] proxy\\.123456789 POST /p+…: "Na+…" \\(1,000 characters\\) is not a member of SupportStateUserLoginRequest at \\$\\.Na{31}…\\(956 characters cut\\)…a{12}$`));
    expect(lines.at(-1)).toMatch(/ POST \/p+…: and 3 more finding\(s\) of this check here \(the reports count them all\)$/);
  });
});

/** One of each request refused before it is read, in the order the note lists them. */
const REFUSED = [
  'POST /supportstateuser HTTP/1.1\r\nhost: x\r\ncontent-length: 4\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n',
  'CONNECT 127.0.0.1:22 HTTP/1.1\r\nhost: 127.0.0.1:22\r\n\r\n',
  `${head('transfer-encoding: gzip, chunked\r\n')}${chunked(LOGIN)}`,
  'GET /supportstateuser HTTP/1.1\r\nconnection: close\r\n\r\n',
  `${head('expect: 200-ok\r\ncontent-length: 2\r\n')}{}`,
  `GET /supportstateuser HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`,
];
const REFUSED_NOTE = `6 request(s) were refused unread, each answered in one line, not judged: 1 malformed HTTP (400), 1 CONNECT (405), 1 transfer coding other than chunked (501), 1 HTTP/1.1 without Host (400), 1 Expect other than 100-continue (417), 1 head past ${maxHeaderSize} bytes (431)`;

describe('requests refused before they are read are counted, not lost', () => {
  it('the reference\'s connections note counts them by why', async () => {
    const r = await startReference();
    try {
      for (const bytes of REFUSED) await rawExchange(r.url, bytes);
      expect(r.connectionsNote()).toBe(REFUSED_NOTE);
    } finally {
      await r.close();
    }
  });

  it('the judging reference\'s report on demand states the same line (a client whose every request was refused read "no request came")', async () => {
    const r = await startJudgingReference({ reportDir: mkdtempSync(join(tmpdir(), 'judging-reference-hostile-')), reports: new Set(['summary']), print: () => undefined });
    try {
      for (const bytes of REFUSED) await rawExchange(r.url, bytes);
      const answer = await fetch(`${r.url}${REPORT_ROUTE}`);
      expect((await answer.json() as { warnings: string[] }).warnings).toContain(REFUSED_NOTE);
    } finally {
      await r.close();
    }
  });
});
