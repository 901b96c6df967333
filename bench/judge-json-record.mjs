// CPU per login answer of parsing it and of judging it as a JSON record, on answers never seen before
// (each account of the reference's population has its own): `node bench/judge-json-record.mjs [N]`
// after `npm run build`. Prints, per answer, the plain JSON path, JSON.parse of the same texts, and
// the UTF-8 decode, parse and the JSON record checks through an ExchangeView (the learner and the
// engine's tallies are not included), with a hash of the findings to compare two builds by.
import { createHash } from 'node:crypto';
import { CATALOGUE } from '../dist/lib/checks/catalogue.js';
import { ExchangeView } from '../dist/lib/checks/exchange-view.js';
import { plainJson } from '../dist/lib/json/plain-json.js';
import { startReference } from '../dist/lib/reference/server.js';

const n = Number(process.argv[2] ?? 12000);
const warm = Math.min(2000, Math.floor(n / 6));
const reference = await startReference({ port: 0 });
const texts = [];
try {
  for (let i = 0; i < n; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(n, i + 50); j++) {
      batch.push(fetch(`${reference.url}/supportstateuser`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userName: `user${j}`, searchValues: `s${j}` }) }).then((r) => r.text()));
    }
    texts.push(...await Promise.all(batch));
  }
} finally {
  await reference.close();
}

const checks = CATALOGUE.filter((c) => c.area === 'JSON record');
const exchange = (text, i) => ({
  id: `e${i}`, title: 'login', origin: { source: 'accounts' }, startedAt: '', durationMs: 0,
  request: { method: 'POST', url: 'http://127.0.0.1:1/supportstateuser', headers: { 'content-type': 'application/json' }, body: `{"userName":"user${i}","searchValues":"s${i}"}` },
  response: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from(text), size: text.length, sha256: '' },
});
const exchanges = texts.map(exchange);
const settings = { namespaces: {} };

/** CPU µs per item of `f` over items[warm..], after items[0..warm) warmed it. */
function cpu(items, f) {
  for (let i = 0; i < warm; i++) f(items[i], i);
  const start = process.cpuUsage();
  for (let i = warm; i < items.length; i++) f(items[i], i);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / (items.length - warm)).toFixed(1);
}

const findings = createHash('sha256');
const judge = (ex, i) => {
  const view = new ExchangeView(ex, settings);
  for (const c of checks) {
    const look = c.judge(view);
    if (i < warm) findings.update(JSON.stringify(Array.isArray(look) ? look.map((f) => ({ ...f, path: f.path })) : look));
  }
};

// Each text is read by one measure only: a text parsed before is cheaper to parse again.
const third = Math.floor(texts.length / 3);
console.log(`${texts.length} login answers, ${Math.round(texts.reduce((a, t) => a + t.length, 0) / texts.length)} characters on average; CPU µs per answer, ${third - warm} measured each:`);
console.log(`  plain JSON path     ${cpu(texts.slice(0, third), (t) => plainJson(t))}`);
console.log(`  JSON.parse          ${cpu(texts.slice(third, 2 * third), (t) => JSON.parse(t))}`);
console.log(`  judged (${checks.length} checks)  ${cpu(exchanges.slice(2 * third), judge)}  findings of the first ${warm}: ${findings.digest('hex').slice(0, 16)}`);
