// The media type of a Content-Type header, lower-cased, without parameters. Parameters
// (charset=utf-8) never change what the type is, so a malformed parameter does not hide it; a list
// of values does: Content-Type is a singleton field (RFC 9110 8.3), so two field lines, joined with
// ", " as a recorded exchange keeps them, name no media type (fetch would take the last of them).
import contentType from 'content-type';
import { remembered } from '../detached.js';

/** Headers already read (a run's answers repeat a few). */
const known = remembered((header) => parsed(header), 256, 256);

export function mediaType(header: string | undefined): string | undefined {
  return header ? known(header) : undefined;
}

/** The charset parameter of a Content-Type header, lower-cased (quotes removed); undefined when it
 *  names none or does not parse. */
export function charsetOf(header: string | undefined): string | undefined {
  return header ? charsets(header) : undefined;
}

/** Charsets of headers already read: parsed once each (a parse per answer cost 3 µs of an account's exchange). */
const charsets = remembered((header): string | undefined => {
  try {
    return contentType.parse(header).parameters.charset?.toLowerCase();
  } catch {
    return undefined;
  }
}, 256, 256);

function parsed(header: string): string | undefined {
  try {
    return contentType.parse(header).type;
  } catch {
    if (isList(header)) return undefined;
    const bare = header.split(';')[0]?.trim().toLowerCase();
    return bare && /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(bare) ? bare : undefined;
  }
}

/** A comma outside quoted strings: the header holds more than one value (RFC 9110 5.3). */
const isList = (header: string): boolean => header.replace(/"(?:[^"\\]|\\.)*"/g, '').includes(',');
