// A whole request pipelined with a malformed one in the same write: Node reads on past the first at
// once and reports the second's fault before the first is answered. The answers go in the order of
// the requests (RFC 9112 9.3.2): the first its own answer, then the one-line 400, then the connection
// closed. The 400 had gone out as the answer to the first (the client never got the answer the
// judging reference judged). The reference and the judging reference alike.
import { describe, expect, it } from 'vitest';
import { startJudgingReference } from '../lib/cli/judging-reference.js';
import { startReference } from '../lib/reference/server.js';
import { rawExchange } from './helpers/raw-target.js';

const LOGIN = '{"userName":"jdoe.support","searchValues":"x"}';
const VALID = `POST /supportstateuser HTTP/1.1\r\nHost: ref.test\r\nContent-Type: application/json\r\nContent-Length: ${LOGIN.length}\r\n\r\n${LOGIN}`;
const MALFORMED = 'POST /supportstateuser HTTP/1.1\r\nHost: ref.test\r\nthis line has no colon\r\n\r\n';

/** The answers' status lines in order, and whether the first carries the record. */
const answersOf = (text: string) => ({ statuses: text.match(/HTTP\/1\.1 \d{3}[^\r]*/g), record: /^HTTP\/1\.1 200 OK[\s\S]*"userName":"jdoe\.support"[\s\S]*HTTP\/1\.1 400/.test(text) });

describe('a whole request pipelined with a malformed one', () => {
  it('the reference answers the first with its record, then the second 400, then closes', async () => {
    const ref = await startReference({});
    try {
      expect(answersOf(await rawExchange(ref.url, VALID + MALFORMED))).toEqual({ statuses: ['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request'], record: true });
    } finally { await ref.close(); }
  });

  it('the judging reference answers the first with the record it judges, then the second 400, then closes', async () => {
    const lines: string[] = [];
    const r = await startJudgingReference({ reportDir: '/nonexistent-never-written', print: (l) => lines.push(l) });
    try {
      expect(answersOf(await rawExchange(r.url, VALID + MALFORMED))).toEqual({ statuses: ['HTTP/1.1 200 OK', 'HTTP/1.1 400 Bad Request'], record: true });
      expect(lines.filter((l) => l.includes('POST /supportstateuser'))).toHaveLength(1);
    } finally { await r.close(); }
  });
});
