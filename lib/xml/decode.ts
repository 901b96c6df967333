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

/** The encoding a byte-order mark names. */
function bomOf(bytes: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

const DECLARED = /^<\?xml[^>]*\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/;

/** The encoding the XML declaration names, read from the head of the bytes: as ASCII (it is ASCII in
 *  every ASCII-compatible encoding), or as UTF-16 after a UTF-16 byte-order mark. */
function declaredIn(bytes: Uint8Array, bom: string | undefined): string | undefined {
  const text = bom === 'utf-16le' || bom === 'utf-16be'
    ? new TextDecoder(bom).decode(bytes.subarray(0, 400)) // drops the byte-order mark
    : Buffer.from(bytes.subarray(bom ? 3 : 0, 200)).toString('latin1');
  return DECLARED.exec(text)?.[1];
}

/** The encoding the XML declaration names at the start of a text already decoded (a request body
 *  read as UTF-8; a byte-order mark before it skipped), or undefined when it names none. */
export const declaredEncoding = (text: string): string | undefined =>
  DECLARED.exec(text.slice(text.charCodeAt(0) === 0xfeff ? 1 : 0, 200))?.[1];

/** What labels an XML entity's encoding, each as written, where present (RFC 7303 3.2, XML 1.0 4.3.3). */
export interface EncodingLabels {
  readonly bom?: string;
  readonly charset?: string;
  readonly declared?: string;
}

export function encodingLabels(bytes: Uint8Array, mediaType?: string): EncodingLabels {
  const bom = bomOf(bytes);
  const charset = charsetOf(mediaType);
  const declared = declaredIn(bytes, bom);
  return { ...(bom ? { bom } : {}), ...(charset ? { charset } : {}), ...(declared ? { declared } : {}) };
}

export function decodeXmlBytes(bytes: Uint8Array, mediaType?: string): DecodedText {
  const bom = bomOf(bytes);
  if (bom) return decode(bytes, bom);
  const fromHeader = charsetOf(mediaType);
  if (fromHeader) return decode(bytes, fromHeader);
  return decode(bytes, declaredIn(bytes, undefined) ?? 'utf-8');
}

/** The WHATWG name of an encoding label ("utf8" and "UTF-8" are "utf-8"), or undefined for none. */
export function encodingName(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}
