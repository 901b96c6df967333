// npm run test:mutants (first half): applies each named mutation (named-mutations.ts) to the source,
// runs the test files that must kill it, and restores the source. Exit 1 when a mutation survives,
// when a killer fails without any mutation (a baseline run first), or when an edit no longer
// matches the source exactly once. Usage: tsx test/mutants/mutation-run.ts [regular expression on the names]
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTATIONS, type Killer, type NamedMutation } from './named-mutations.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** The original text of every file changed so far: put back on any way out. */
const originals = new Map<string, string>();
const restore = () => { for (const [file, text] of originals) writeFileSync(file, text); originals.clear(); };
process.on('exit', restore);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => { restore(); process.exit(130); });

function runs(k: Killer): { failed: boolean; tail: string } {
  const r = spawnSync(process.execPath, [VITEST, 'run', ...k.files, ...(k.filter ? ['-t', k.filter] : []), '--reporter=dot'], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, QUIET: '1' }, maxBuffer: 64 * 1024 * 1024, timeout: 900_000,
  });
  const out = `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
  // No test selected is no verdict: a filter that matches nothing must not count as a kill.
  const ran = /Tests\s+.*\d+ (passed|failed)/.test(out);
  return { failed: r.status !== 0 || !ran, tail: ran ? out.split('\n').filter((l) => /^\s+Tests /.test(l)).join(' ').trim() : 'no test ran' };
}

function apply(m: NamedMutation): string | undefined {
  const path = join(ROOT, m.file);
  const text = readFileSync(path, 'utf8');
  let next = text;
  for (const e of m.edits) {
    const n = next.split(e.from).length - 1;
    if (n !== 1) return `${m.file}: the edit's source occurs ${n} times, expected once (update named-mutations.ts)`;
    next = next.replace(e.from, () => e.to);
  }
  originals.set(path, text);
  writeFileSync(path, next);
  return undefined;
}

const only = process.argv[2];
const chosen = MUTATIONS.filter((m) => !only || new RegExp(only).test(m.name));
const key = (k: Killer) => JSON.stringify(k);
const killers = [...new Map(chosen.flatMap((m) => m.killers).map((k) => [key(k), k])).values()];
let bad = 0;

for (const k of killers) {
  const r = runs(k);
  const ok = !r.failed;
  if (!ok) bad++;
  process.stdout.write(`baseline ${ok ? 'passes' : 'FAILS '} ${k.files.join(' ')}${k.filter ? ` -t "${k.filter}"` : ''}${ok ? '' : `: ${r.tail}`}\n`);
}
if (bad) { process.stdout.write(`${bad} killer(s) fail without a mutation: no mutation verdict is meaningful\n`); process.exit(1); }

let survived = 0;
for (const m of chosen) {
  const problem = apply(m);
  if (problem) { survived++; process.stdout.write(`STALE    ${m.name}: ${problem}\n`); restore(); continue; }
  try {
    for (const k of m.killers) {
      const r = runs(k);
      if (!r.failed) survived++;
      process.stdout.write(`${r.failed ? 'killed  ' : 'SURVIVED'} ${m.name} by ${k.files.join(' ')}${k.filter ? ` -t "${k.filter}"` : ''}${r.failed ? ` (${r.tail})` : ''}\n`);
    }
  } finally {
    restore();
  }
}
const total = chosen.reduce((n, m) => n + m.killers.length, 0);
process.stdout.write(`named mutations: ${total - survived} of ${total} killed${survived ? `, ${survived} survived` : ''}\n`);
process.exit(survived ? 1 : 0);
