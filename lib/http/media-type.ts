// The media type of a Content-Type header, lower-cased, without parameters. Parameters
// (charset=utf-8) never change what the type is, so a malformed parameter does not hide it.
import contentType from 'content-type';
import { detachedCopy } from '../detached.js';

/** Headers already read (a run's answers repeat a few): short ones only, each a copy of its own. */
const known = new Map<string, string | undefined>();

export function mediaType(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (known.has(header)) return known.get(header);
  const type = parsed(header);
  if (header.length <= 256) {
    if (known.size >= 256) known.clear();
    known.set(detachedCopy(header), type);
  }
  return type;
}

function parsed(header: string): string | undefined {
  try {
    return contentType.parse(header).type;
  } catch {
    const bare = header.split(';')[0]?.trim().toLowerCase();
    return bare && /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(bare) ? bare : undefined;
  }
}
