#!/usr/bin/env node
// The installed command: `soap-json-conformance [check] [options]` checks a deployment (or the
// embedded reference), `… reference [options]` serves the reference implementation, `… report
// [options]` rebuilds or merges report directories. Each subcommand is one of the programs
// bin/run.mjs starts, in this process; their options and --help are their own.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMMANDS = { check: 'cli/main', reference: 'cli/reference', report: 'cli/report' };
const USAGE = `usage: soap-json-conformance [check] [options]     check a deployment (--base-url URL), or the embedded reference
       soap-json-conformance reference [options]   serve the reference implementation
       soap-json-conformance report [options]      rebuild a report directory, or --merge the shards of a run
       soap-json-conformance <command> --help      that command's options
       soap-json-conformance --version`;

const [first, ...rest] = process.argv.slice(2);
if (first === '--version' || first === '-v') {
  process.stdout.write(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
  process.exit(0);
}
const named = first !== undefined && Object.hasOwn(COMMANDS, first);
if (first !== undefined && !named && !first.startsWith('-')) {
  process.stderr.write(`soap-json-conformance: unknown command ${JSON.stringify(first)}\n${USAGE}\n`);
  process.exit(2);
}
// Bare --help: the commands first; the default command's own options follow, printed by it.
if (first === '--help' || first === '-h') process.stdout.write(`${USAGE}\n\n`);
// Usage lines and hints name this command, not `npm run` (lib/options.ts commandOf).
globalThis[Symbol.for('soap-json-conformance.installed')] = true;
process.argv = [process.argv[0], join(ROOT, 'bin', 'run.mjs'), named ? COMMANDS[first] : COMMANDS.check, ...(named ? rest : process.argv.slice(2))];
await import('./run.mjs');
