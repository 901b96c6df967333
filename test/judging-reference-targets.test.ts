// The judging reference judges every request it answers as the interface, whatever form its target
// takes: an absolute-form target (RFC 9112 3.2.2, "POST http://host/supportstateuser") is answered as
// the operation its path names, so it is judged as that operation too; "//supportstateuser", a path
// (RFC 9112 3.2.1) that ServiceStack routes as the login (empty segments dropped), is answered and
// judged as the login.
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJudgingReference, type JudgingReference } from '../lib/cli/judging-reference.js';

/** One request as raw bytes on its own connection; the status line of the answer. */
function rawStatus(port: number, head: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`));
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => { got += d; });
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('request-target forms at the judging reference', () => {
  let judging: JudgingReference;
  const lines: string[] = [];
  beforeAll(async () => { judging = await startJudgingReference({ reportDir: mkdtempSync(join(tmpdir(), 'judging-targets-')), print: (l) => lines.push(l) }); });
  afterAll(() => judging.close());

  it('an absolute-form login is answered and judged as the login: a ✓ line names it', async () => {
    const from = lines.length;
    const answer = await rawStatus(judging.port, 'POST http://evil.example/supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json', '{"userName":"jdoe.support","searchValues":"x"}');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(lines.slice(from)).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/supportstateuser: no finding$/)]);
  });

  it('an absolute-form confirm with an ownerId string is refused naming REQ-JSON-TYPES, and fails it in the tallies', async () => {
    const from = lines.length;
    const answer = await rawStatus(judging.port, 'POST http://evil.example/user/confirmemail HTTP/1.1\r\nHost: x\r\nContent-Type: application/json',
      '{"recoveryToken":"rt-123","verifyEmail":"jane@example.org","ownerId":"7","isForMM":false}');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/fails REQ-JSON-TYPES/);
    expect(lines.slice(from).some((l) => /^✗ REQ-JSON-TYPES \[/.test(l))).toBe(true);
  });

  it('"//supportstateuser" is answered and judged as the login, as ServiceStack routes it', async () => {
    const from = lines.length;
    const answer = await rawStatus(judging.port, 'POST //supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json', '{"userName":"jdoe.support","searchValues":"x"}');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(lines.slice(from)).toEqual([expect.stringMatching(/^✓ client\.\d+ POST \/\/supportstateuser: no finding$/)]);
  });
});
