#!/usr/bin/env node
// `node bench/cold-pairs.mjs OLD_CHECKOUT NEW_CHECKOUT [PAIRS]`: cold `npm run conformance` (the
// embedded reference, every report) in two built checkouts, interleaved (old, new, old, new…) so that
// the load of a shared machine falls on both alike. Prints each run's time to its verdict line and to
// its exit, then min / median / max of each for both. Time as bench/run.ts takes it: from the start of
// npm to its exit.
import { spawn } from 'node:child_process';

const [oldDir, newDir, pairsText = '4'] = process.argv.slice(2);
if (!oldDir || !newDir) { process.stderr.write('usage: node bench/cold-pairs.mjs OLD_CHECKOUT NEW_CHECKOUT [PAIRS]\n'); process.exit(2); }

function cold(cwd) {
  return new Promise((resolve) => {
    const start = performance.now();
    let verdict;
    let out = '';
    const child = spawn('npm', ['run', 'conformance', '--silent'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      if (verdict === undefined && /\nVerdict: /.test(`\n${out}`)) verdict = performance.now() - start;
    });
    child.on('close', (code) => resolve({ code, total: (performance.now() - start) / 1000, verdict: (verdict ?? NaN) / 1000 }));
  });
}

const runs = { old: [], new: [] };
for (let i = 0; i < Number(pairsText); i++) {
  for (const [name, dir] of [['old', oldDir], ['new', newDir]]) {
    const r = await cold(dir);
    runs[name].push(r);
    process.stdout.write(`${name} ${i + 1}: verdict ${r.verdict.toFixed(2)} s, exit ${r.code} at ${r.total.toFixed(2)} s\n`);
  }
}
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return `${s[0].toFixed(2)} / ${median.toFixed(2)} / ${s[s.length - 1].toFixed(2)}`;
};
for (const name of ['old', 'new']) {
  process.stdout.write(`${name}: total min/median/max ${stats(runs[name].map((r) => r.total))} s; verdict ${stats(runs[name].map((r) => r.verdict))} s\n`);
}
const gains = runs.new.map((r, i) => runs.old[i].total - r.total);
process.stdout.write(`old − new, pair by pair: ${gains.map((g) => g.toFixed(2)).join(', ')} s (median ${stats(gains).split(' / ')[1]} s)\n`);
