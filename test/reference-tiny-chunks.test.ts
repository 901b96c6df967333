// A request body sent in 1-byte chunks: the reference kept each piece as its own Buffer until the
// body ended, so 6 MB on the wire (a 1 MiB body, under its cap) took 400 MB of its memory. Measured
// on the reference's own process (its peak RSS, VmHWM) under three such requests at once.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { platform } from 'node:os';
import { describe, expect, it } from 'vitest';
import { servingProgram } from './helpers/cli.js';

/** One request whose body is `{` + `n` spaces + `}`, each its own chunk; the answer's status line. */
function tinyChunks(url: string, n: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let got = '';
    const socket = connect(Number(port), hostname, () => {
      socket.write('POST /supportstateuser HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n');
      socket.write(Buffer.from('1\r\n \r\n'.repeat(n)));
      socket.end('1\r\n}\r\n0\r\n\r\n');
    });
    socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
    socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
    socket.on('error', () => undefined);
  });
}

describe('the reference reading bodies sent in 1-byte chunks', () => {
  it('answers three bodies of 1 000 000 one-byte chunks at once with 200, its peak RSS under 200 MB', async (ctx) => {
    if (platform() !== 'linux') { ctx.annotate('not Linux: the peak RSS of a child process is read from /proc'); return; }
    const s = servingProgram('cli/reference', ['--port', '0']);
    try {
      const url = await s.url;
      const statuses = await Promise.all([1, 2, 3].map(() => tinyChunks(url, 1_000_000)));
      const peak = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'))![1]) / 1024;
      ctx.annotate(`peak RSS of the reference: ${Math.round(peak)} MB`);
      expect(statuses).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
      expect(peak).toBeLessThan(200);
    } finally {
      s.child.kill();
      await s.exit;
    }
  });
});
