// The proxy times an ended wait on a client by how long its thread slept in it (lib/traffic/proxy.ts
// `longWait`): wall time less the ns Linux's schedstat says it ran or waited to run. The clock reads
// those two figures, and where the file is not there (not Linux) there is no clock: wall time then.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { threadBusy } from '../lib/traffic/thread-busy.js';

describe('a thread\'s busy clock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'thread-busy-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the ms on a CPU and waiting for one, read again at each call', () => {
    const file = join(dir, 'schedstat');
    writeFileSync(file, '123000000 456500000 7\n');
    const clock = threadBusy(file)!;
    expect(clock.busyMs()).toBe(579.5);
    writeFileSync(file, '9123000000 456500000 8\n');
    expect(clock.busyMs()).toBe(9579.5);
    clock.close();
    clock.close();
    expect(clock.busyMs()).toBeNaN();
  });

  it('is none where the figures cannot be read', () => {
    expect(threadBusy(join(dir, 'absent'))).toBeUndefined();
    const file = join(dir, 'other');
    writeFileSync(file, 'no figures here\n');
    expect(threadBusy(file)).toBeUndefined();
  });

  it('is this thread\'s own on Linux', () => {
    if (process.platform !== 'linux') return;
    const clock = threadBusy()!;
    expect(clock.busyMs()).toBeGreaterThan(0);
    clock.close();
  });
});
