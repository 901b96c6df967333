// A set of fingerprints of secret tokens in one flat table of fixed size: a run of 100 000 accounts
// learns millions of values, and a JavaScript Set of strings would hold each one whole. The table is
// allocated once, at its bound, and never grows or is copied: memory is the same for ten accounts'
// worth of values as for the bound's worth (the operating system maps its pages as they are first
// written), so a run's peak does not climb with the number of accounts. Each value is hashed to 64
// bits: 22 or more of them choose its home slot and 32 more are stored there (a tag), four bytes a
// value at three-quarters fill. A lookup compares the tags of one short probe run, so a false match
// has a chance of about ten in 2^32 per lookup (and only masks a harmless token); a learned value is
// never missed. Past `max` fingerprints the set takes no more (and says so: `full`).

/** FNV-1a over UTF-16 code units, twice with different offsets: two independent 32-bit halves. */
function fingerprint(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  // A tag of 0 marks an empty slot: never produce it.
  return [a >>> 0, (b >>> 0) || 1];
}

/** Fill at which the table stops taking values: linear probing stays short below it. */
const MAX_FILL = 0.75;

export class FingerprintSet {
  /** Tags, allocated at the first value (a run that learns nothing costs nothing). */
  private tags: Uint32Array | undefined;
  private count = 0;
  /** Whether a fingerprint was refused for want of room. */
  full = false;

  /** `max`: fingerprints kept at most. */
  constructor(readonly max: number) {}

  /** Slots of the table: the first power of two that holds `max` at MAX_FILL. */
  private get slots(): number {
    return Math.max(1024, 2 ** Math.ceil(Math.log2(Math.ceil(this.max / MAX_FILL))));
  }

  /** Bytes the table takes, from its first value to the end of the run: four a slot. */
  get maxBytes(): number {
    return this.slots * 4;
  }

  get size(): number {
    return this.count;
  }

  /** Bytes held by the table (0 until the first value). */
  get bytes(): number {
    return this.tags?.byteLength ?? 0;
  }

  /** Adds a fingerprint; false when it was refused because the set is full. */
  add(token: string): boolean {
    const [a, b] = fingerprint(token);
    const tags = (this.tags ??= new Uint32Array(this.slots));
    const mask = tags.length - 1;
    let i = a & mask;
    for (; tags[i] !== 0; i = (i + 1) & mask) if (tags[i] === b) return true;
    if (this.count >= this.max) {
      this.full = true;
      return false;
    }
    tags[i] = b;
    this.count++;
    return true;
  }

  has(token: string): boolean {
    const tags = this.tags;
    if (!tags) return false;
    const [a, b] = fingerprint(token);
    const mask = tags.length - 1;
    for (let i = a & mask; tags[i] !== 0; i = (i + 1) & mask) if (tags[i] === b) return true;
    return false;
  }
}
