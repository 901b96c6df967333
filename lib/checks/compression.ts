// Compressed answers (RFC 9110 8.4, 12.5.3): an answer's content coding is one the request offered,
// and its body decodes in it. An offered coding is decoded as it arrives (decodedAnswer: probe and proxy),
// or was by a HAR's recorder (recorderDecodedAnswer), so every other check judges the decoded body, as
// a client with automatic decompression reads it.
import { OPERATIONS } from '../contract/operations.js';
import { acceptEncodingOf, appliedCodings, isOffered, MAX_STACKED_CODINGS, offeredCodings } from '../http/content-coding.js';
import { finding, show, type Check } from './check.js';
import { PATHS } from './whole-answer.js';

/** Whether a Content-Encoding value names a coding (most answers have none: no list made for them). */
const codedAnswer = (contentEncoding: string | undefined): boolean => contentEncoding !== undefined && appliedCodings(contentEncoding).length > 0;

export const COMPRESSION_CHECKS: readonly Check[] = [
  {
    area: 'Format selection', operation: OPERATIONS.map((op) => op.name).join(', '), clause: '4', level: 'MUST',
    id: 'CONTENT-CODING',
    title: 'A compressed answer uses a coding the request offered, and decodes',
    requirement: 'An answer\'s Content-Encoding names only codings the request\'s Accept-Encoding offered (none when it sent none), and the body decodes in them (RFC 9110 8.4.1).',
    interpretation: 'RFC 9110 12.5.3 lets a server pick any coding when the request names none, but a client that offered none (HttpClient without '
      + 'automatic decompression) reads the coded bytes as the record: refused. A Content-Encoding the body does not honour (gzip over plain text) '
      + 'fails here; the probes that send Accept-Encoding: gzip, deflate, br are judged by every other check on the decoded body.',
    judges: 'every answer to a request of the interface that offered a content coding (Accept-Encoding), or that came content-coded',
    appliesTo: (ex) => ex.kind.operation !== undefined
      && (acceptEncodingOf(ex.exchange.request.headers) !== undefined || codedAnswer(ex.exchange.response?.headers['content-encoding'])),
    judge: (ex) => {
      const r = ex.response();
      if (!r.ok) return { skip: r.reason };
      const declared = r.value.headers['content-encoding'];
      const codings = appliedCodings(declared);
      if (!codings.length) return [];
      const accept = acceptEncodingOf(ex.exchange.request.headers);
      const offered = offeredCodings(accept);
      const unasked = codings.filter((c) => !isOffered(c, offered));
      if (unasked.length) {
        const why = accept === undefined ? 'the request sent no Accept-Encoding' : `the request offered ${accept.trim() ? show(accept.trim()) : 'none'}`;
        return [finding(`Content-Encoding ${show(declared!.trim())}, but ${why}`, { path: 'headers.content-encoding', actual: declared! })];
      }
      const coding = r.value.contentCoding;
      if (!coding) return { skip: `Content-Encoding ${show(declared!.trim())} is not one the harness decodes` };
      if (!coding.error) return [];
      // Too many to undo: the count said first, the header (thousands of codings) as the value received.
      if (coding.codings.length > MAX_STACKED_CODINGS) return [finding(`Content-Encoding of ${coding.error}`, { path: 'headers.content-encoding', actual: declared! })];
      return [finding(`Content-Encoding ${show(declared!.trim())}, but the body is ${coding.error}`, { path: PATHS.body })];
    },
  },
];
