// What the proxy forwards of a head (headOf, read once per request and per answer): every field in
// order and case but the hop-by-hop ones, which describe one connection (RFC 9110 7.6.1: those of the
// fixed list and every name a Connection field lists, framing aside), Host naming the target. headOf
// reads names case-insensitively without lower-casing each one; this holds it to the plain reading.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headOf } from '../lib/traffic/proxy.js';

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'transfer-encoding', 'upgrade'];

/** The plain reading: each name lower-cased, compared with the hop-by-hop list and the names every
 *  Connection field lists (never Content-Length or Host: the message stays framed as it came). */
function plainHead(raw: readonly string[], replaceHost?: string) {
  const lower = (i: number) => raw[i]!.toLowerCase();
  const listed = new Set<string>();
  let te: string | undefined;
  let length: string | undefined;
  let host = false;
  for (let i = 0; i < raw.length; i += 2) {
    if (lower(i) === 'connection') for (const n of raw[i + 1]!.split(',')) listed.add(n.trim().toLowerCase());
    if (lower(i) === 'transfer-encoding') te = te === undefined ? raw[i + 1] : `${te}, ${raw[i + 1]}`;
    if (lower(i) === 'content-length') length ??= raw[i + 1];
    if (lower(i) === 'host') host = true;
  }
  listed.delete('content-length');
  listed.delete('host');
  const headers: string[] = [];
  if (replaceHost && !host) headers.push('Host', replaceHost);
  for (let i = 0; i < raw.length; i += 2) {
    if (HOP_BY_HOP.includes(lower(i)) || listed.has(lower(i))) continue;
    headers.push(raw[i]!, lower(i) === 'host' && replaceHost ? replaceHost : raw[i + 1]!);
  }
  const trailer = headers.some((n, i) => i % 2 === 0 && n.toLowerCase() === 'trailer');
  return { headers, te, length, trailer };
}

/** A name in any case: the hop-by-hop and framing ones, names as long as those, others. */
const NAMES = [...HOP_BY_HOP, 'host', 'content-length', 'content-type', 'x-drop', 'close', 'trailer', 'date', 'x-keep', 'authorization', 'accept-encoding1'];
const anyCase = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length })
  .map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
const field = fc.constantFrom(...NAMES).chain((name) => fc.tuple(anyCase(name), name === 'connection'
  ? fc.array(fc.constantFrom('keep-alive', 'Keep-Alive', 'close', 'X-Drop', 'content-length', ' x-keep ', '', 'TE', 'Trailer'), { minLength: 1, maxLength: 3 }).map((v) => v.join(','))
  : fc.constantFrom('1', 'a b', '')));

describe('the head the proxy forwards', () => {
  it('is the plain reading for any list of fields in any case: hop-by-hop ones and those Connection lists left out, framing and Trailer read, Host replaced', () => {
    fc.assert(fc.property(fc.array(field, { maxLength: 12 }), fc.constantFrom(undefined, 'target:1'), (fields, replaceHost) => {
      const raw = fields.flat();
      expect(headOf(raw, replaceHost)).toEqual(plainHead(raw, replaceHost));
    }), { numRuns: 3000 });
  });

  it.each([
    ['Connection: keep-alive', ['Content-Type', 'a', 'Connection', 'keep-alive', 'Keep-Alive', 'timeout=5', 'X-Keep', '1'], ['Content-Type', 'a', 'X-Keep', '1']],
    ['Connection: close and a field named Close', ['Connection', 'close', 'Close', 'x', 'Date', 'd'], ['Date', 'd']],
    ['Connection naming X-Drop and Content-Length', ['CONNECTION', 'Keep-Alive, X-Drop, Content-Length', 'x-DROP', 'gone', 'Content-Length', '2', 'TE', 'trailers'], ['Content-Length', '2']],
  ])('%s: forwards %j as %j', (_what, raw, forwarded) => {
    expect(headOf(raw).headers).toEqual(forwarded);
  });
});
