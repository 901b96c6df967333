// The two servers that guard their connections the same way (lib/http/connection-guard.ts), each
// started with a bound on connections: the reference and the judging reference (summary only).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startJudgingReference } from '../../lib/cli/judging-reference.js';
import type { ConnectionCounts } from '../../lib/http/connection-guard.js';
import { startReference } from '../../lib/reference/server.js';

export interface GuardedServer { readonly url: string; connections(): ConnectionCounts; close(): Promise<void> }

/** Makers of the reference and the judging reference at a bound of `max` connections by name;
 *  `prefix` names the judging reference's report directory. */
export const guardedServers = (prefix: string): Record<string, (max: number) => Promise<GuardedServer>> => ({
  reference: async (max) => {
    const r = await startReference({ connections: { max } });
    return { url: r.url, connections: () => r.connections, close: r.close };
  },
  'judging reference': async (max) => {
    const r = await startJudgingReference({ connections: { max }, reportDir: mkdtempSync(join(tmpdir(), prefix)), reports: new Set(['summary']), print: () => undefined });
    return { url: r.url, connections: () => r.connections, close: r.close };
  },
});
