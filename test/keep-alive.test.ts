// Who closes an idle connection: the harness, long before the reference would. When both could close
// it at about the same time, a request sent on a socket the server was closing got a reset and was
// judged a failure (seen under load: "connection closed … before the response was complete").
import { describe, expect, it } from 'vitest';
import { CLIENT_KEEP_ALIVE_MS } from '../lib/http/send.js';
import { REFERENCE_KEEP_ALIVE_MS } from '../lib/reference/server.js';
import { call, useReference } from './helpers/reference.js';

const ref = useReference();

describe('idle connections', () => {
  it('the reference announces (Keep-Alive: timeout=65) an idle time at least 30 s past the longest the harness keeps one (10 s)', async () => {
    const r = await call(`${ref.url}/supportstateuser`, { json: { userName: 'jdoe.support', searchValues: 's' } });
    expect(r.status).toBe(200);
    const announced = Number(/timeout=(\d+)/.exec(String(r.headers.get('keep-alive')))?.[1]) * 1000;
    expect(announced).toBe(REFERENCE_KEEP_ALIVE_MS);
    expect(announced - CLIENT_KEEP_ALIVE_MS).toBeGreaterThanOrEqual(30_000);
  });
});
