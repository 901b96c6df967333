// The floors under --accounts: undici alone (the harness's client, through the same handler interface
// and Agent) sending the same requests, `connections` in flight, each body collected and then dropped
// (`none`), parsed by V8's JSON.parse from its UTF-8 text (`native`), or read by the harness's own
// parser (`plain`, lib/json/plain-json.ts: what --accounts reads an answer with); nothing judged,
// recorded or reported. `node bench/bare-undici.mjs URL REQUESTS.json [connections] [none|native|plain]`
// prints {requests, seconds}; the bench reads its CPU from the ended child.
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { plainJsonBytes, NOT_PLAIN } from '../dist/lib/json/plain-json.js';

const [url, file, connections = '32', parse = 'none'] = process.argv.slice(2);
if (!['none', 'native', 'plain'].includes(parse)) throw new Error(`parse: none, native or plain, not ${parse}`);
/** The answers the harness's parser handed back (it reads them the slow way then). */
let notPlain = 0;
const read = parse === 'native' ? (b) => JSON.parse(b.toString('utf8'))
  : parse === 'plain' ? (b) => { if (plainJsonBytes(b) === NOT_PLAIN) notPlain++; }
    : () => {};
const { origin } = new URL(url);
const requests = JSON.parse(readFileSync(file, 'utf8'));
const agent = new Agent({ connections: Number(connections) });
const headers = { 'content-type': 'application/json', accept: 'application/json' };

/** One request: resolves with its status once its body has come, whole. */
const send = (r) => new Promise((resolve, reject) => {
  const chunks = [];
  let status = 0;
  agent.dispatch({ origin, path: r.path, method: 'POST', headers, body: r.body }, {
    onRequestStart() {},
    onResponseStart(_c, code) { status = code; },
    onResponseData(_c, chunk) { chunks.push(chunk); },
    onResponseEnd() { read(Buffer.concat(chunks)); resolve(status); },
    onResponseError(_c, error) { reject(error); },
  });
});

let next = 0;
let failed = 0;
const t = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, async () => {
  while (next < requests.length) if ((await send(requests[next++])) !== 200) failed++;
}));
const seconds = (performance.now() - t) / 1000;
await agent.close();
process.stdout.write(`${JSON.stringify({ requests: requests.length, failed, notPlain, seconds })}\n`);
