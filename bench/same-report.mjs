#!/usr/bin/env node
// `node bench/same-report.mjs DIR_A DIR_B`: do two report directories say the same, ignoring what
// differs between any two runs (times, dates, durations, uuids and the ids made from them, ports,
// paths, the session tokens the reference hands out)? Compares summary.json, exchanges.json,
// traceability.md, junit.xml, the Allure results (each result by its historyId, its attachments by
// content) and report.html: its page outside the data, and every data file it embeds (decoded,
// matched by content). Prints each difference (at most 20) and exits 1 when there is one; run it on
// two runs of the same build first to see that it finds none there. Give directories whose paths are
// equally long: the report names its directory, and Allure states the byte length of what names it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [a, b] = process.argv.slice(2);
if (!a || !b) { process.stderr.write('usage: node bench/same-report.mjs DIR_A DIR_B\n'); process.exit(2); }

/** Text with the run-specific parts replaced by their kind. */
const text = (s, dir) => s
  .split(dir).join('<dir>')
  .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
  .replace(/\b[0-9a-f]{12,64}\b/gi, '<hex>')
  .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?/g, '<date>')
  .replace(/\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?/g, '<date>')
  .replace(/(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT/g, '<date>')
  .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:<port>')
  .replace(/\b1[6-9]\d{11}\b/g, '<epoch-ms>')
  .replace(/\b(time|duration)(="|":)[\d.]+/g, '$1$2<duration>')
  .replace(/\b\d+(?:\.\d+)? ?(?:ms|s)\b/g, '<duration>')
  .replace(/(token|session|Token|Session)([^A-Za-z0-9]{1,12})[A-Za-z0-9+/_=-]{16,}/g, '$1$2<token>');

/** Keys whose values are times, durations or memory: left out. */
const VOLATILE = /^(?:start|stop|duration|sequentialDuration|speedup|createdAt|cacheKey|time|timestamp|startedAt|finishedAt|timings|peakRss|durationMs|elapsedMs|ms|jobRunUid|reportUuid|uuid|id|testResultId|historyDataPoint)$|Ms$|At$|Bytes$/;

function json(v, dir) {
  if (Array.isArray(v)) return v.map((x) => json(x, dir));
  if (v && typeof v === 'object') {
    if (v.type === 'durations' && Array.isArray(v.data)) return json({ ...v, data: '<durations>', keys: '<durations>' }, dir); // a histogram of this run's durations
    const entries = Object.entries(v).filter(([k]) => !VOLATILE.test(k)).map(([k, x]) => [text(k, dir), json(x, dir)]);
    // Keyed by ids (which normalise alike): the entries as a list, key and value together.
    return new Set(entries.map(([k]) => k)).size < entries.length ? entries.map(([k, x]) => ({ key: k, value: x })) : Object.fromEntries(entries);
  }
  if (typeof v === 'string') return text(v, dir);
  if (typeof v === 'number' && v > 1.5e12) return '<epoch-ms>';
  return v;
}
/** A JSON text or any other text, normalised and then as one canonical string (object keys sorted;
 *  arrays as they are, or sorted when `unordered`). */
function canonical(s, dir, unordered = false) {
  let v;
  try { v = JSON.parse(s); } catch { return text(s, dir); }
  const sort = (x) => {
    if (Array.isArray(x)) { const xs = x.map(sort); return unordered ? xs.map((e) => JSON.stringify(e)).sort().map((e) => JSON.parse(e)) : xs; }
    return x && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k])])) : x;
  };
  return JSON.stringify(sort(json(v, dir)));
}

const problems = [];
const notes = [];
const differ = (what, x, y) => {
  if (x === y) return;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  problems.push(`${what} differs at ${i}: …${x.slice(Math.max(0, i - 60), i + 80)}… against …${y.slice(Math.max(0, i - 60), i + 80)}…`);
};
/** Two bags of texts: each text of one is in the other as often. */
function offBag(xs, ys) {
  const count = new Map();
  for (const x of xs) count.set(x, (count.get(x) ?? 0) + 1);
  for (const y of ys) count.set(y, (count.get(y) ?? 0) - 1);
  return [...count].filter(([, n]) => n !== 0);
}
/** Bags of [ordered, unordered] canonical texts: a text that differs only in the order of a list
 *  is a note (Allure orders some lists by the order it read its files in, which differs run to run). */
function sameBag(what, xs, ys) {
  const off = offBag(xs.map(([o]) => o), ys.map(([o]) => o));
  if (!off.length) return;
  const still = offBag(xs.map(([, u]) => u), ys.map(([, u]) => u));
  if (!still.length) { notes.push(`${what}: ${off.length / 2} entr(ies) differ only in the order of a list`); return; }
  problems.push(`${what}: ${still.length} entr(ies) in one only, e.g. ${still.slice(0, 2).map(([k, n]) => `${n > 0 ? 'A' : 'B'} only: ${k.slice(0, 400)}`).join(' / ')}`);
}
const both = (f) => [f(false), f(true)];

const read = (dir, name) => readFileSync(join(dir, name), 'utf8');
for (const name of ['summary.json', 'exchanges.json', 'traceability.md', 'junit.xml', 'interface.md', 'replay.sh']) {
  const [x, y] = [existsSync(join(a, name)), existsSync(join(b, name))];
  if (x !== y) { problems.push(`${name} is in ${x ? a : b} only`); continue; }
  if (x) differ(name, canonical(read(a, name), a), canonical(read(b, name), b));
}

/** The Allure results: each result (attachment sources replaced by their contents) and every other
 *  file but the attachments, by content. */
function allure(dir) {
  const results = join(dir, 'allure-results');
  const out = [];
  const names = readdirSync(results);
  const swap = (v) => {
    if (Array.isArray(v)) return v.map(swap);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'source' && typeof x === 'string' ? text(readFileSync(join(results, x), 'utf8'), dir) : swap(x)]));
    return v;
  };
  for (const n of names) {
    if (n.endsWith('-result.json')) out.push(both((u) => canonical(JSON.stringify(swap(JSON.parse(readFileSync(join(results, n), 'utf8')))), dir, u)));
    else if (!/-attachment(?:\.\w+)?$/.test(n)) out.push(both((u) => `${text(n, dir)}: ${canonical(readFileSync(join(results, n), 'utf8'), dir, u)}`));
  }
  return { out, files: names.length };
}
const [ra, rb] = [allure(a), allure(b)];
if (ra.files !== rb.files) problems.push(`allure-results holds ${ra.files} files in ${a}, ${rb.files} in ${b}`);
sameBag('allure-results', ra.out, rb.out);

/** report.html: the page without its data, and its data files (base64 in `d("name","value")`). */
function page(dir) {
  const html = readFileSync(join(dir, 'report.html'), 'latin1');
  const data = [];
  const rest = html.replace(/d\("([^"]+)","([^"]*)"\)/g, (_, name, value) => {
    const content = Buffer.from(value, 'base64').toString('utf8');
    data.push(both((u) => `${text(name, dir)}: ${canonical(content, dir, u)}`));
    return 'd()';
  });
  // The awesome page's own script and style are large base64 data URLs: compared as they are.
  return { rest: text(rest, dir).replace(/"createdAt":\d+|"cacheKey":"\d+"/g, '<time>'), data };
}
const [pa, pb] = [page(a), page(b)];
differ('report.html (outside its data)', pa.rest, pb.rest);
if (pa.data.length !== pb.data.length) problems.push(`report.html embeds ${pa.data.length} data files in ${a}, ${pb.data.length} in ${b}`);
sameBag('report.html data files', pa.data, pb.data);

for (const p of [...notes, ...problems.slice(0, 20)]) process.stdout.write(`${p}\n`);
process.stdout.write(problems.length ? `${problems.length} difference(s)\n` : `same: ${a} and ${b} (${ra.files} Allure result files, ${pa.data.length} data files in report.html)\n`);
process.exit(problems.length ? 1 : 0);
