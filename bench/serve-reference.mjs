// The reference for `npm run bench`, compiled (dist/, built by the bench first), with a chosen bound
// on its cache of population answers: `node bench/serve-reference.mjs [--cache-mib N]`. The accounts
// benchmark sizes it to hold every account it replays, so that the harness is measured, not the
// reference's generator.
import { startReference } from '../dist/lib/reference/server.js';

const at = process.argv.indexOf('--cache-mib');
const mib = at > 0 ? Number(process.argv[at + 1]) : undefined;
const reference = await startReference({ port: 0, ...(mib !== undefined ? { answerCacheBytes: mib * 1024 * 1024 } : {}) });
process.stdout.write(`listening on ${reference.url}\n`);
process.on('SIGTERM', () => { void reference.close().then(() => process.exit(0)); });
