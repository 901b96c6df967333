// A proxied exchange records the request the target received: its URL is the forwarded one, and so
// are its headers (Host naming the target, hop-by-hop headers made for that hop). Recording the
// client's Host beside the target's URL made replay.sh's curl send the target a Host naming the
// proxy (or whatever the client called it), which a virtual-hosted target answers otherwise.
import { describe, expect, it } from 'vitest';
import { judgeable } from '../lib/traffic/proxy.js';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy records the request as forwarded', () => {
  const setup = proxiedRawTarget(() => OK);

  it('its Host names the target and its headers are those the target got (Node adds only Connection)', async () => {
    const request = 'POST /supportstateuser HTTP/1.1\r\nHost: proxy.example:8080\r\nContent-Type: application/json\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n{}';
    expect(await rawExchange(setup.proxy.url, request)).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const got = setup.target.requests.at(-1)!;
    const ex = judgeable(setup.seen.at(-1)!, 1 << 20);
    expect(ex.request.url).toBe(`${setup.target.url}/supportstateuser`);
    expect(ex.request.headers).toEqual({ host: new URL(setup.target.url).host, 'content-type': 'application/json', 'content-length': '2' });
    const { connection, ...received } = got.headers;
    expect([connection, received]).toEqual(['keep-alive', ex.request.headers]);
  });
});
