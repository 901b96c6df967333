// An honest client for the tests of connection bounds: one request on a connection of its own.
import { request } from 'node:http';
import { GENEROUS_MS } from './wait.js';

/** The body it sends: a record the reference accepts. */
export const HONEST_BODY = JSON.stringify({ userName: 'test', password: 'pw' });

/** Posts HONEST_BODY to `path` on a connection of its own: the status, or the error's code. */
export function honest(url: string, path = '/supportstateuser'): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(HONEST_BODY) }, signal: AbortSignal.timeout(GENEROUS_MS) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.name));
    req.end(HONEST_BODY);
  });
}
