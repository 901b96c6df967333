// The OPTIONS routes are asked as a browser asks them, a CORS preflight: a deployment whose CORS
// layer answers preflights (204 with the CORS headers) and a bare OPTIONS 405, as ASP.NET Core's
// UseCors does, serves every browser right and passes; it had failed two MUST checks.
import { describe, expect, it } from 'vitest';
import { PREFLIGHT } from '../lib/engine/probes.js';
import { referenceAnswer, useFront } from './helpers/front.js';
import { useReference } from './helpers/reference.js';

const reference = useReference();
const seen: Record<string, string | undefined>[] = [];
const front = useFront(async (req, res) => {
  if (req.method === 'OPTIONS') {
    seen.push({ origin: req.headers.origin, method: req.headers['access-control-request-method'] });
    if (req.headers.origin === undefined || req.headers['access-control-request-method'] === undefined) { res.writeHead(405, { allow: 'POST' }).end(); return; }
    res.writeHead(204, { 'access-control-allow-origin': req.headers.origin, 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'content-type' }).end();
    return;
  }
  const got = await referenceAnswer(reference.url, req);
  res.writeHead(got.status, { 'content-type': got.type ?? 'text/plain', 'content-length': String(got.body.length) });
  res.end(got.body);
});

describe('a deployment whose CORS layer answers preflights only', () => {
  it('is asked preflights, and passes the OPTIONS route checks and OPTIONS-ALLOWS-POST', () => {
    expect(seen).toEqual([{ origin: PREFLIGHT.origin, method: 'POST' }, { origin: PREFLIGHT.origin, method: 'POST' }]);
    const status = (id: string) => front.run.results.find((r) => r.check.id === id)?.status;
    expect(['ROUTE-LOGIN-OPTIONS', 'ROUTE-CONFIRM-OPTIONS', 'OPTIONS-ALLOWS-POST'].map(status)).toEqual(['pass', 'pass', 'pass']);
  });
});
