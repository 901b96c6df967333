// `OPTIONS *` (RFC 9112 3.2.4: the server as a whole) reaches a target that has a path as `*`: the
// proxy forwarded it under the target's path, as `OPTIONS /api*`, which is no request target at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type ForwardedExchange, type RunningProxy } from '../lib/traffic/proxy.js';
import { rawExchange, startRawTarget, type RawTarget } from './helpers/raw-target.js';

describe('--proxy in front of a target with a path, and OPTIONS *', () => {
  let target: RawTarget;
  let proxy: RunningProxy;
  const seen: ForwardedExchange[] = [];
  beforeAll(async () => {
    target = await startRawTarget(() => 'HTTP/1.1 204 No Content\r\n\r\n');
    proxy = await startProxy({ target: `${target.url}/api`, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: (ex) => seen.push(ex) });
  });
  afterAll(async () => { await proxy.close(0); await target.close(); });

  it('OPTIONS * is forwarded as OPTIONS *, and a path under the target path as ever', async () => {
    expect(await rawExchange(proxy.url, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(await rawExchange(proxy.url, 'OPTIONS /supportstateuser HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 204 No Content\r\n/);
    expect(target.requests.map((r) => r.line)).toEqual(['OPTIONS * HTTP/1.1', 'OPTIONS /api/supportstateuser HTTP/1.1']);
    expect(seen.map((e) => e.url)).toEqual([target.url, `${target.url}/api/supportstateuser`]);
  });
});
