// The baseline for the proxy's throughput: a node:http reverse proxy that forwards each request
// and its answer (status, headers, streamed body) to the target given as its one argument, and does
// nothing else: no copy, no judging. What it costs is what forwarding itself costs on this machine.
import { createServer, request } from 'node:http';

const target = new URL(process.argv[2]);
const server = createServer((req, res) => {
  const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
