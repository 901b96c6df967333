// The validating proxy passes on every informational answer (1xx) the target sends before its final
// one, as it came: status, reason phrase and fields (names' case, order, repeats), only the hop-by-hop
// fields left out. Node's writeEarlyHints joined repeated `Link` fields into one and wrote `Link`
// first, dropped a 103 without one and refused one whose Link it could not parse (a 502), and every
// other 1xx (102, 104, …) was dropped. An HTTP/1.0 client gets none (RFC 9110 15.2).
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const INFORMATIONAL = [
  'HTTP/1.1 102 Processing\r\nX-Step: one\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nx-hint: a\r\nLink: </a.css>; rel=preload\r\nConnection: X-Hop\r\nX-Hop: gone\r\nLINK: </b.js>; rel=preload\r\nKeep-Alive: timeout=5\r\nlink: </c.png>; rel=preload\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nX-No-Link: 1\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nLink: not a link\r\n\r\n',
  'HTTP/1.1 104 Upload Resumption Required\r\nUpload-Draft-Interop-Version: 6\r\nlocation: /uploads/1\r\n\r\n',
  'HTTP/1.1 199 Whatever It Says\r\n\r\n',
];
/** What the client gets of them: the hop-by-hop fields (Connection, those it names, Keep-Alive) left out. */
const PASSED = INFORMATIONAL.map((head) => head.replace(/Connection: X-Hop\r\nX-Hop: gone\r\n|Keep-Alive: timeout=5\r\n/g, '')).join('');
const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
/** A 1xx with a character HTTP forbids in its reason phrase (DEL), which Node's parser reads. */
const FORBIDDEN = 'HTTP/1.1 102 Pro\x7fcessing\r\n\r\n';

describe('--proxy and the informational answers (1xx) before an answer', () => {
  const setup = proxiedRawTarget((r) => `${r.line.startsWith('GET /forbidden ') ? FORBIDDEN : INFORMATIONAL.join('')}${OK}`);

  it('an HTTP/1.1 client gets each 1xx with its status, reason phrase and fields as sent (less the hop-by-hop ones), then the 200; the exchange is the 200', async () => {
    const before = setup.seen.length;
    const got = await rawExchange(setup.proxy.url, 'GET /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(got.slice(0, got.indexOf('HTTP/1.1 200 OK\r\n'))).toBe(PASSED);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.seen.slice(before).map((ex) => [ex.error, ex.answer?.status])).toEqual([[undefined, 200]]);
  });

  it('an HTTP/1.0 client gets no 1xx, only the 200', async () => {
    const got = await rawExchange(setup.proxy.url, 'GET /supportstateuser HTTP/1.0\r\nHost: x\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
  });

  it('a 1xx holding a character HTTP forbids is not passed on but counted, and the 200 after it is', async () => {
    const before = setup.proxy.informationalDropped();
    const got = await rawExchange(setup.proxy.url, 'GET /forbidden HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got.endsWith('\r\n\r\n{}')).toBe(true);
    expect(setup.proxy.informationalDropped() - before).toBe(1);
  });
});
