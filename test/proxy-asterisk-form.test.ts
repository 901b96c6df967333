// `OPTIONS *` (RFC 9112 3.2.4: the server as a whole) reaches a target that has a path as `*`: the
// proxy forwarded it under the target's path, as `OPTIONS /api*`, which is no request target at all.
import { describe, expect, it } from 'vitest';
import { proxiedRawTarget, rawExchange } from './helpers/raw-target.js';

describe('--proxy in front of a target with a path, and OPTIONS *', () => {
  const setup = proxiedRawTarget(() => 'HTTP/1.1 204 No Content\r\n\r\n', { path: '/api' });

  it('OPTIONS * is forwarded as OPTIONS *, and a path under the target path as ever', async () => {
    expect(await rawExchange(setup.proxy.url, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(await rawExchange(setup.proxy.url, 'OPTIONS /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(setup.target.requests.map((r) => r.line)).toEqual(['OPTIONS * HTTP/1.1', 'OPTIONS /api/supportstateuser HTTP/1.1']);
    expect(setup.seen.map((e) => e.url)).toEqual([setup.target.url, `${setup.target.url}/api/supportstateuser`]);
  });
});
