// A legacy whose JSON records are 9.5 MiB (under the 10 MiB cap): the reference, each record made long
// in three values. test/differential-bounds.test.ts bounds a differential run against it; bench/floods.ts
// measures the same run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReference } from '../../lib/reference/server.js';

/** One long string (not sensitive), a long list (within the 10,000 items a body may hold), and a long
 *  personal string. */
export const LONG = 'L'.repeat(4 * 1024 * 1024);
export const ROLES = Array.from({ length: 9_000 }, (_, i) => `role-${i}-${'r'.repeat(320)}`);
export const PERSONAL = 'P'.repeat(2 * 1024 * 1024);

export async function startLongRecordLegacy(): Promise<{ url: string; close(): Promise<void> }> {
  const reference = await startReference();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const { host: _h, connection: _c, 'content-length': _l, ...headers } = req.headers as Record<string, string>;
        const r = await fetch(reference.url + req.url, { method: req.method, headers, body: ['GET', 'HEAD', 'OPTIONS'].includes(req.method!) ? undefined : Buffer.concat(chunks) });
        let body = Buffer.from(await r.arrayBuffer());
        if (r.status === 200 && req.method === 'POST' && (r.headers.get('content-type') ?? '').startsWith('application/json')) {
          const record = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
          if ('releaseMessage' in record) body = Buffer.from(JSON.stringify({ ...record, releaseMessage: LONG, roles: ROLES, searchValues: PERSONAL }));
        }
        const { 'content-length': _len, 'transfer-encoding': _te, ...out } = Object.fromEntries(r.headers);
        res.writeHead(r.status, out);
        res.end(body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => { await new Promise((resolve) => server.close(resolve)); await reference.close(); },
  };
}
