// The validating proxy forwards a request target as it came (origin form, or the path of an
// http(s) absolute form) or refuses it with 400: a target Node's parser takes that is neither
// (`http://[::1`, `ftp://host/path`) was forwarded as a path the client never sent (`/http://[::1`, `/path`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../lib/traffic/proxy.js';
import { rawExchange, startRawTarget, type RawTarget } from './helpers/raw-target.js';

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('--proxy and request targets that are neither a path nor an http(s) URL', () => {
  let target: RawTarget;
  let proxy: RunningProxy;
  let unjudged = 0;
  beforeAll(async () => {
    target = await startRawTarget(() => OK);
    proxy = await startProxy({ target: target.url, port: 0, maxBodyBytes: 1 << 20, timeoutMs: 30_000, onExchange: () => undefined, onUnjudged: () => { unjudged++; } });
  });
  afterAll(async () => { await proxy.close(0); await target.close(); });

  it.each(['http://[::1', 'ftp://elsewhere.example/supportstateuser'])('%s: 400, nothing forwarded, counted as refused', async (requestTarget) => {
    const before = [target.requests.length, proxy.refused()];
    expect(await rawExchange(proxy.url, `GET ${requestTarget} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect([target.requests.length, proxy.refused()]).toEqual([before[0], before[1]! + 1]);
    expect(unjudged).toBe(0);
  });

  it('an http absolute form still goes to the target under its path', async () => {
    expect(await rawExchange(proxy.url, 'GET http://elsewhere.example/supportstateuser?q=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(target.requests.at(-1)?.line).toBe('GET /supportstateuser?q=1 HTTP/1.1');
  });
});
