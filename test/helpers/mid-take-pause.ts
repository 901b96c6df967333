// A client's kernel pausing mid-take, for the proxy's tests of clients that read none of an answer.
import { ServerResponse } from 'node:http';

/** As when a client's kernel delays its ACK mid-take (57 ms seen on a loaded machine): the fourth
 *  drain of each answer (some 200 KB in) is seen 60 ms late, the proxy's thread asleep (nothing is
 *  written meanwhile); the kernel then takes megabytes more at once. Until `restore`; `drains`
 *  counts each answer's drains so far, in the order of their first. */
export function pauseMidTake(): { drains: Map<ServerResponse, number>; restore(): void } {
  const emit = ServerResponse.prototype.emit;
  const drains = new Map<ServerResponse, number>();
  ServerResponse.prototype.emit = function (this: ServerResponse, event: string | symbol, ...args: unknown[]) {
    if (event !== 'drain') return emit.call(this, event, ...args);
    const n = (drains.get(this) ?? 0) + 1;
    drains.set(this, n);
    if (n !== 4) return emit.call(this, event, ...args);
    setTimeout(() => emit.call(this, event, ...args), 60);
    return true;
  };
  return { drains, restore: () => { ServerResponse.prototype.emit = emit; } };
}
