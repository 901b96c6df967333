// The media type of a Content-Type header, lower-cased, without parameters. Parameters
// (charset=utf-8) never change what the type is, so a malformed parameter does not hide it.
import contentType from 'content-type';
import { remembered } from '../detached.js';

/** Headers already read (a run's answers repeat a few). */
const known = remembered((header) => parsed(header), 256, 256);

export function mediaType(header: string | undefined): string | undefined {
  return header ? known(header) : undefined;
}

function parsed(header: string): string | undefined {
  try {
    return contentType.parse(header).type;
  } catch {
    const bare = header.split(';')[0]?.trim().toLowerCase();
    return bare && /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(bare) ? bare : undefined;
  }
}
