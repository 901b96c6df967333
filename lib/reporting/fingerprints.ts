// A set of 64-bit fingerprints of secret tokens, in flat typed arrays: a run of 100 000 accounts learns
// millions of values, and a JavaScript Set of strings would hold each one whole. Eight bytes a value
// (sixteen at the table's lowest fill) keep memory a small, fixed cost per value, and a lookup costs the
// same whatever the number of values learned. A false match (about one in 2^64) only masks a harmless
// token; a value is never missed. The set is bounded: past `max` fingerprints it takes no more (and
// says so: `full`), so its table never passes maxBytes however many values a run meets.

/** FNV-1a over UTF-16 code units, twice with different offsets: two independent 32-bit halves. */
function fingerprint(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  // 0 marks an empty slot: never produce it.
  return [(a >>> 0) || 1, b >>> 0];
}

export class FingerprintSet {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private count = 0;
  /** Whether a fingerprint was refused for want of room. */
  full = false;

  /** `max`: fingerprints kept at most. */
  constructor(readonly max: number) {}

  /** Bytes the table takes at most: it doubles when half full, so with max entries it has the first
   *  power of two of slots above 2 * (max - 1), eight bytes each. */
  get maxBytes(): number {
    return Math.max(1024, 2 ** Math.ceil(Math.log2(Math.max(1, this.max * 2 - 1)))) * 8;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held by the table. */
  get bytes(): number {
    return this.hi.byteLength + this.lo.byteLength;
  }

  /** Adds a fingerprint; false when it was refused because the set is full. */
  add(token: string): boolean {
    const [a, b] = fingerprint(token);
    if (this.count >= this.max) {
      if (this.hasPair(a, b)) return true;
      this.full = true;
      return false;
    }
    if (this.count * 2 >= this.hi.length) this.grow();
    if (this.insert(this.hi, this.lo, a, b)) this.count++;
    return true;
  }

  has(token: string): boolean {
    const [a, b] = fingerprint(token);
    return this.hasPair(a, b);
  }

  private hasPair(a: number, b: number): boolean {
    const mask = this.hi.length - 1;
    for (let i = (a ^ b) & mask; this.hi[i] !== 0; i = (i + 1) & mask) {
      if (this.hi[i] === a && this.lo[i] === b) return true;
    }
    return false;
  }

  private insert(hi: Uint32Array, lo: Uint32Array, a: number, b: number): boolean {
    const mask = hi.length - 1;
    let i = (a ^ b) & mask;
    for (; hi[i] !== 0; i = (i + 1) & mask) if (hi[i] === a && lo[i] === b) return false;
    hi[i] = a;
    lo[i] = b;
    return true;
  }

  private grow(): void {
    const hi = new Uint32Array(this.hi.length * 2);
    const lo = new Uint32Array(this.lo.length * 2);
    for (let i = 0; i < this.hi.length; i++) if (this.hi[i] !== 0) this.insert(hi, lo, this.hi[i]!, this.lo[i]!);
    this.hi = hi;
    this.lo = lo;
  }
}
