// Content codings (RFC 9110 8.4, 12.5.3): what a request offers in Accept-Encoding, and an answer's
// body decoded as a client that offered them decodes it (.NET's HttpClient with automatic
// decompression, a browser). Decoding is bounded by the body cap, counted after decoding, so a
// small body that inflates without end (a "zip bomb") costs no more than the cap.
import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { recordedResponse, type RawHeaders, type RecordedResponse } from './exchange.js';

/** The codings the harness can decode, by the names Content-Encoding uses. */
const DECODERS: Readonly<Record<string, (body: Buffer, options: ZlibOptions) => Buffer>> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** Whether the harness can decode a coding (by its lower-case name). */
export const canDecode = (coding: string): boolean => Object.hasOwn(DECODERS, coding);

/** Codings stacked in one answer that the harness undoes at most: each layer costs up to a cap of
 *  decoding, done at once, so a head of 3 000 `gzip,` over 6 MiB of stored blocks held the event
 *  loop for half a minute, past every time limit. No server stacks more than two. */
export const MAX_STACKED_CODINGS = 4;

/** What a compressing client sends: every coding the harness decodes. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** The codings an Accept-Encoding value offers (q > 0), lower-cased; `*` stands for any. Empty
 *  when the header is absent or offers nothing. */
export function offeredCodings(acceptEncoding: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!coding) continue;
    const q = params.find((p) => /^q\s*=/.test(p));
    if (q !== undefined && !(Number(q.replace(/^q\s*=\s*/, '')) > 0)) continue;
    out.add(coding);
  }
  return out;
}

/** The codings a Content-Encoding value lists, in the order they were applied; identity left out. */
export const appliedCodings = (contentEncoding: string | undefined): string[] =>
  (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');

/** A request's Accept-Encoding, by its name in any case (a recording may keep another case). */
export function acceptEncodingOf(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name in headers) if (name.toLowerCase() === 'accept-encoding') return headers[name];
  return undefined;
}

export const isOffered = (coding: string, offered: ReadonlySet<string>): boolean =>
  offered.has(coding) || offered.has('*') || (coding === 'x-gzip' && offered.has('gzip'));

export type Decoding =
  | { readonly ok: true; readonly body: Buffer; readonly codings: readonly string[] }
  | { readonly ok: false; readonly tooLarge: boolean; readonly error: string; readonly codings: readonly string[] };

/**
 * The body with its content codings undone, last applied first, when the request offered every one
 * of them and the harness can decode it; `codings` empty when nothing was done (no coding, or one the
 * request did not offer: that body is left as received, for the checks to refuse). Never more than
 * `cap` bytes out.
 */
export function decodeContent(body: Buffer, contentEncoding: string | undefined, acceptEncoding: string | undefined, cap: number): Decoding {
  const codings = appliedCodings(contentEncoding);
  const offered = offeredCodings(acceptEncoding);
  if (!codings.length || !codings.every((c) => isOffered(c, offered) && canDecode(c))) return { ok: true, body, codings: [] };
  if (codings.length > MAX_STACKED_CODINGS) {
    return { ok: false, tooLarge: false, codings, error: `${codings.length} codings stacked, more than the ${MAX_STACKED_CODINGS} the harness undoes` };
  }
  let out = body;
  for (const coding of [...codings].reverse()) {
    try {
      out = DECODERS[coding]!(out, { maxOutputLength: cap });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const tooLarge = err.code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError;
      return { ok: false, tooLarge, codings, error: tooLarge ? `more than the cap once decoded from ${coding}` : `not ${coding} data (${err.message.split('\n')[0]})` };
    }
  }
  return { ok: true, body: out, codings };
}

/** An answer past the cap once decoded: `how` says so (' once decoded from gzip'), for bodyPastCap. */
export interface PastCapDecoded { readonly pastCapHow: string }

/**
 * An answer as recorded, by a probe and by the proxy alike: its body decoded from the content codings
 * `acceptEncoding` offered (the request's), within `cap` counted after decoding; `size` and `sha256`
 * stay those of the bytes received, the headers as received. `contentCoding` names the codings undone,
 * with `error` (the body then as received) when it is not data of them; absent when nothing was undone
 * (no coding, one not offered, or one the harness does not decode). PastCapDecoded when decoding went
 * past the cap: the caller keeps the head and says why the body is missing.
 */
export function decodedAnswer(status: number, headers: Readonly<Record<string, string>>, raw: Buffer, reason: string | undefined, rawHeaders: RawHeaders | undefined, acceptEncoding: string | undefined, cap: number): RecordedResponse | PastCapDecoded {
  const coded = headers['content-encoding'];
  if (coded === undefined) return recordedResponse(status, headers, raw, reason, rawHeaders); // nothing to decode (decodeContent's answer)
  const d = decodeContent(raw, coded, acceptEncoding, cap);
  if (!d.ok && d.tooLarge) return { pastCapHow: ` once decoded from ${d.codings.join(', ')}` };
  const received = recordedResponse(status, headers, raw, reason, rawHeaders);
  if (!d.codings.length) return received;
  if (!d.ok) return Object.assign(received, { contentCoding: { codings: d.codings, error: d.error } });
  // Spread: the digest is taken now, of the bytes received, before `body` is the decoded one.
  return { ...received, body: d.body, contentCoding: { codings: d.codings } };
}

/** An answer as a recording holds it, its body decoded by the recorder (HAR 1.2's content.text): the
 *  headers as received, Content-Encoding among them, and the codings it names undone byRecorder
 *  (RecordedResponse.contentCoding says what that leaves unknown). */
export function recorderDecodedAnswer(status: number, headers: Readonly<Record<string, string>>, body: Buffer, reason: string | undefined, rawHeaders: RawHeaders | undefined): RecordedResponse {
  const response = recordedResponse(status, headers, body, reason, rawHeaders);
  const codings = appliedCodings(headers['content-encoding']);
  return codings.length ? Object.assign(response, { contentCoding: { codings, byRecorder: true as const } }) : response;
}
