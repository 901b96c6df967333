// A raw client for the tests of connection bounds: it writes what it is given and counts the answers.
import { connect, type Socket } from 'node:net';

/** A connection that writes `send`, reads what comes, and counts the answers' heads. */
export function countingClient(url: string, send: string) {
  const { hostname, port } = new URL(url);
  const c = { socket: undefined as unknown as Socket, got: '', closed: false, answers: () => c.got.split('HTTP/1.1 ').length - 1 };
  c.socket = connect(Number(port), hostname, () => c.socket.write(send));
  c.socket.on('error', () => undefined);
  c.socket.on('close', () => { c.closed = true; });
  c.socket.on('data', (d: Buffer) => { c.got += d.toString('latin1'); });
  return c;
}
