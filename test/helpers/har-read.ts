import { harExchanges } from '../../lib/traffic/har.js';

/** What the HAR reader makes of a file: the exchanges' ids, and the one line it is refused with. */
export async function readHar(path: string): Promise<{ ids: string[]; refused?: string }> {
  const ids: string[] = [];
  try {
    for await (const ex of harExchanges(path, 10 * 1024 * 1024)) ids.push(ex.id);
  } catch (e) {
    return { ids, refused: (e as Error).message };
  }
  return { ids };
}
