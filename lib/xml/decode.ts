// Bytes -> text for an XML entity, as XML 1.0 appendix F and RFC 7303 say: a byte-order mark
// first, then the media type's charset, then the declaration's encoding, else UTF-8.
import { TextDecoder } from 'node:util';
import contentType from 'content-type';
import { detachedCopy, remembered } from '../detached.js';

export type DecodedText = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: string };

/** Charsets of headers already read (a run's answers repeat a few). */
const charsets = remembered((header): string | undefined => {
  try {
    return contentType.parse(header).parameters.charset;
  } catch {
    return undefined;
  }
}, 256, 256);

const charsetOf = (header: string | undefined): string | undefined => (header ? charsets(header) : undefined);

/** A decoder per label, made once: a decode without streaming starts afresh each time. One that
 *  refused its bytes is not used again. */
const decoders = new Map<string, TextDecoder>();

function decode(bytes: Uint8Array, label: string): DecodedText {
  let decoder = decoders.get(label);
  if (!decoder) {
    try {
      decoder = new TextDecoder(label, { fatal: true, ignoreBOM: false });
    } catch {
      return { ok: false, error: `the body declares an unknown character encoding ${JSON.stringify(label)}` };
    }
    if (label.length <= 64) {
      if (decoders.size >= 32) decoders.clear();
      decoders.set(detachedCopy(label), decoder);
    }
  }
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    decoders.delete(label);
    return { ok: false, error: `the body is not valid ${label}` };
  }
}

export function decodeXmlBytes(bytes: Uint8Array, mediaType?: string): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode(bytes, 'utf-8');
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode(bytes, 'utf-16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode(bytes, 'utf-16be');
  const fromHeader = charsetOf(mediaType);
  if (fromHeader) return decode(bytes, fromHeader);
  // The declaration is ASCII in every ASCII-compatible encoding.
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  const declared = /^<\?xml[^>]*\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/.exec(head)?.[1];
  return decode(bytes, declared ?? 'utf-8');
}
