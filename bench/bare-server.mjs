// The baseline for reference throughput: bare node:http answering exactly the reference's bytes
// for POST /supportstateuser (read from the golden recording), and nothing else.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const golden = readFileSync(new URL('../fixtures/golden/login.json', import.meta.url), 'utf8');
const [head, ...rest] = golden.split('\n\n');
const type = head.replace('Content-Type: ', '');
const body = Buffer.from(rest.join('\n\n'));
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
