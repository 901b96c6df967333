// A forward proxy for tests (CONNECT tunnels and absolute-form requests), counting what it carries.
import { createServer, request } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface Proxy { readonly url: string; readonly carried: () => number; close(): Promise<void> }

export async function startProxy(): Promise<Proxy> {
  let carried = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    carried++;
    const up = request(req.url!, { method: req.method, headers: req.headers }, (r) => { res.writeHead(r.statusCode!, r.headers); r.pipe(res); });
    up.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    carried++;
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host!, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const end = () => { upstream.destroy(); client.destroy(); };
    upstream.on('error', end);
    client.on('error', end);
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    carried: () => carried,
    close: async () => { for (const s of sockets) s.destroy(); await new Promise<void>((r) => server.close(() => r())); },
  };
}
