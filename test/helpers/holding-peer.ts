// A hostile peer for the tests of connection bounds: it holds as many connections as it may.
import { connect, type Socket } from 'node:net';

/** A peer keeping `n` connections open, each sending `head` and then nothing, and opening a new one
 *  as soon as one is closed (that it sees: `reads` false, its socket is paused and reads nothing). */
export function holdingPeer(url: string, n: number, head: string, reads = true) {
  const { hostname, port } = new URL(url);
  let stopped = false;
  let opened = 0;
  const open = new Set<Socket>();
  const one = () => {
    if (stopped) return;
    opened++;
    const s = connect(Number(port), hostname, () => { s.write(head); if (!reads) s.pause(); });
    open.add(s);
    s.on('error', () => undefined);
    s.on('close', () => { open.delete(s); setImmediate(one); });
  };
  for (let i = 0; i < n; i++) one();
  return { opened: () => opened, stop: () => { stopped = true; for (const s of open) s.destroy(); } };
}
