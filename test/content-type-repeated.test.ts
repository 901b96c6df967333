// A target that sends Content-Type twice (RFC 9110 8.3: a singleton field): the first line right,
// the second not. The harness keeps repeated fields joined with ", "; the route checks must see two
// values there, not the first line's media type.
import { describe, expect, it } from 'vitest';
import { referenceAnswer, useFront } from './helpers/front.js';
import { useReference } from './helpers/reference.js';

const reference = useReference();
const front = useFront(async (req, res) => {
  const got = await referenceAnswer(reference.url, req);
  // The first line with a parameter, as a lenient reader of a malformed list would read it.
  const type = got.type?.split(';')[0];
  res.writeHead(got.status, [...(type ? ['Content-Type', `${type}; charset=utf-8`, 'Content-Type', 'text/html'] : []), 'Content-Length', String(got.body.length)]);
  res.end(got.body);
});

describe('a second Content-Type field line', () => {
  it('fails the route checks of JSON and SOAP answers, naming both values', () => {
    const message = (id: string) => front.run.results.find((r) => r.check.id === id)?.message;
    expect(front.run.verdict).toBe('non-conformant');
    // Each field quoted as it came, not the joined value no one sent.
    expect(message('ROUTE-LOGIN-POST')).toContain('2 Content-Type fields ("application/json; charset=utf-8", "text/html"); one is allowed (RFC 9110 8.3), expected application/json');
    expect(message('ROUTE-SOAP-POST')).toContain('2 Content-Type fields ("application/xml; charset=utf-8", "text/html"); one is allowed (RFC 9110 8.3), expected application/xml');
  });
});
