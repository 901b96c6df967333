// The reference's cache of population answers (lib/reference/answer-cache.ts): bounded by bytes,
// least recently used out first, and invisible on the wire: with faults, value faults and styles
// at a fault rate of one half, every answer is byte for byte what the reference without a cache
// writes, and a variant that edits each reply (random tokens) still does so on every reply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ByteLru, ENTRY_OVERHEAD_BYTES } from '../lib/reference/answer-cache.js';
import { startReference, type ReferenceOptions, type RunningReference } from '../lib/reference/server.js';
import { FAULTS, STYLES } from '../lib/reference/variants.js';
import { RANDOM_TOKENS, VALUE_FAULTS } from '../lib/reference/value-faults.js';
import { UserDetails } from '../lib/contract/records.js';
import { call } from './helpers/reference.js';

const CREDENTIALS = UserDetails.fields.filter((f) => f.sensitivity === 'credential').map((f) => f.json);

describe('ByteLru', () => {
  const cost = (key: string, bytes: number) => bytes + key.length * 2 + ENTRY_OVERHEAD_BYTES;

  it('drops the least recently used entry once the bytes pass the bound, and no other', () => {
    const lru = new ByteLru<string>(cost('a', 100) * 3);
    for (const k of ['a', 'b', 'c']) lru.set(k, k, 100);
    expect(lru.get('a')).toBe('a'); // a is now the most recent: b is the oldest
    lru.set('d', 'd', 100);
    expect(['a', 'b', 'c', 'd'].map((k) => lru.get(k))).toEqual(['a', undefined, 'c', 'd']);
    expect(lru.bytes).toBe(cost('a', 100) * 3);
  });

  it('replacing a key counts its bytes once', () => {
    const lru = new ByteLru<string>(10_000);
    lru.set('k', 'one', 100);
    lru.set('k', 'two', 300);
    expect([lru.get('k'), lru.size, lru.bytes]).toEqual(['two', 1, cost('k', 300)]);
  });

  it('keeps nothing larger than its whole bound, and nothing at all with a bound of 0', () => {
    const lru = new ByteLru<string>(1000);
    lru.set('big', 'x', 1000);
    expect([lru.get('big'), lru.size, lru.bytes]).toEqual([undefined, 0, 0]);
    const none = new ByteLru<string>(0);
    none.set('a', 'a', 1);
    expect(none.size).toBe(0);
  });
});

const byName = (names: readonly string[]) => [...STYLES, ...FAULTS, ...VALUE_FAULTS].filter((v) => names.includes(v.name));
/** A style, faults at the JSON record, data, SOAP and HTTP levels, and a value fault. */
const VARIANTS = byName(['json-keys-sorted', 'indented-xml', 'json-string-as-number', 'json-bom', 'soap-boolean-missing', 'confirm-name-not-string', 'boolean-flipped']);

/** Every way an account's record is asked for: JSON, XML by Accept, JSON by ?format=, JSONP, and a confirmation. */
function asks(i: number): { path: string; json: unknown; headers?: Record<string, string> }[] {
  const login = { userName: `user${i}`, searchValues: `s${i}` };
  return [
    { path: '/supportstateuser', json: login },
    { path: '/supportstateuser', json: login, headers: { accept: 'application/xml' } },
    { path: '/supportstateuser?format=json', json: login, headers: { accept: 'application/xml' } },
    { path: '/supportstateuser?callback=cb', json: login },
    { path: '/user/confirmemail', json: { recoveryToken: `rt${i}`, verifyEmail: `u${i}@example.org`, ownerId: i } },
  ];
}

async function answers(ref: RunningReference, accounts: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < accounts; i++) {
    for (const a of asks(i)) {
      const r = await call(ref.url + a.path, { json: a.json, ...(a.headers ? { headers: a.headers } : {}) });
      out.push(`${a.path} ${a.headers?.accept ?? ''} -> ${r.status} ${r.type} ${r.headers.get('content-length')}\n${r.body}`);
    }
  }
  return out;
}

describe('the reference with its answer cache', () => {
  const started: RunningReference[] = [];
  const start = async (options: ReferenceOptions) => { const r = await startReference(options); started.push(r); return r; };
  afterAll(async () => { await Promise.all(started.map((r) => r.close())); });

  it('answers byte for byte as without a cache, faults and styles at a fault rate of 0.5 included, asked once and again', async () => {
    const options: ReferenceOptions = { variants: VARIANTS, faultRate: 0.5 };
    const uncached = await start({ ...options, answerCacheBytes: 0 });
    const cached = await start(options);
    const expected = await answers(uncached, 12);
    expect(uncached.answerCache.entries).toBe(0);
    expect(await answers(cached, 12)).toEqual(expected); // filling the cache
    expect(await answers(cached, 12)).toEqual(expected); // from the cache
    // json, xml and confirm records per account (?format=json and JSONP reuse the json one).
    expect(cached.answerCache.entries).toBe(12 * 3);
  }, 120_000);

  it('keeps one entry per account and format: asking again adds none', async () => {
    const ref = await start({});
    const ask = (i: number, accept?: string) => call(`${ref.url}/supportstateuser`, { json: { userName: `user${i}` }, ...(accept ? { headers: { accept } } : {}) });
    for (let i = 0; i < 10; i++) await ask(i);
    expect(ref.answerCache.entries).toBe(10);
    for (let i = 0; i < 10; i++) await ask(i);
    expect(ref.answerCache.entries).toBe(10);
    await ask(3, 'application/xml');
    expect(ref.answerCache.entries).toBe(11);
  }, 60_000);

  it('holds no more bytes than its bound however many accounts ask', async () => {
    const ref = await start({ answerCacheBytes: 20_000 });
    for (let i = 0; i < 60; i++) await call(`${ref.url}/supportstateuser`, { json: { userName: `user${i}` } });
    const { entries, bytes, maxBytes } = ref.answerCache;
    expect(maxBytes).toBe(20_000);
    expect(bytes).toBeLessThanOrEqual(20_000);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(60);
  }, 60_000);
});

describe('a variant that edits every reply, behind the cache', () => {
  let ref: RunningReference;
  beforeAll(async () => { ref = await startReference({ variants: [RANDOM_TOKENS] }); });
  afterAll(async () => { await ref.close(); });

  it('random tokens are fresh in each answer to the same account, the rest of the record the same', async () => {
    const ask = async () => JSON.parse((await call(`${ref.url}/supportstateuser`, { json: { userName: 'user.tokens' } })).body) as Record<string, unknown>;
    const [a, b] = [await ask(), await ask()];
    expect(ref.answerCache.entries).toBe(1);
    const credentials = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    expect(credentials.length).toBeGreaterThan(0);
    expect(credentials.every((k) => CREDENTIALS.includes(k))).toBe(true);
    expect({ ...a, ...Object.fromEntries(credentials.map((k) => [k, 0])) }).toEqual({ ...b, ...Object.fromEntries(credentials.map((k) => [k, 0])) });
  }, 60_000);
});

describe('a variant that throws, on the fast path', () => {
  let ref: RunningReference;
  beforeAll(async () => { ref = await startReference({ variants: [{ name: 'throws', description: 'every reply edit throws', editReply: () => { throw new Error('boom'); } }] }); });
  afterAll(async () => { await ref.close(); });

  it('a reply edit that throws after the body is read is answered 500, and the reference keeps serving', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await call(`${ref.url}/supportstateuser`, { json: { userName: 'jdoe.support' } });
      expect([r.status, (JSON.parse(r.body) as { responseStatus: { errorCode: string } }).responseStatus.errorCode]).toEqual([500, 'InternalServerError']);
    }
  }, 60_000);
});
