// A set of fingerprints of secret tokens in one flat table of fixed size: a run of 100 000 accounts
// learns millions of values, and a JavaScript Set of strings would hold each one whole. The table is
// allocated once, at its bound, and never grows or is copied: memory is the same for ten accounts'
// worth of values as for the bound's worth (the operating system maps its pages as they are first
// written), so a run's peak does not climb with the number of accounts. Each value is hashed to 64
// bits: 22 or more of them choose its home slot and 32 more are stored there (a tag), four bytes a
// value at three-quarters fill. A lookup compares the tags of one short probe run, so a false match
// has a chance of about ten in 2^32 per lookup (and only masks a harmless token); a learned value is
// never missed. Past `max` fingerprints the set takes no more (and says so: `full`).
// Shared (`share`), the table and its count live in SharedArrayBuffers: the judging workers of a run
// (lib/engine/judge-pool.ts) learn into the one table the main thread's redactor reads, each slot
// claimed with Atomics.compareExchange so two workers never write one slot.

/** FNV-1a over UTF-16 code units, twice with different offsets: two independent 32-bit halves,
 *  written to HALVES (no pair, nor a number too large for a small integer, allocated per value). */
const HALVES = new Uint32Array(2);
function fingerprint(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  HALVES[0] = a;
  // A tag of 0 marks an empty slot: never produce it.
  HALVES[1] = b || 1;
}

/** fingerprint() of `codes[from, to)` read as text (ASCII codes), lower-cased, and, when
 *  `from2 < to2`, of that, a space and `codes[from2, to2)` lower-cased (two words as one): the same
 *  halves, without the strings. */
function foldedFingerprint(codes: Uint8Array, from: number, to: number, from2: number, to2: number): void {
  const two = from2 < to2;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ (to - from + (two ? 1 + to2 - from2 : 0));
  for (let i = from; i < to; i++) {
    const c = lowerAscii(codes[i]!);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  if (two) {
    a = Math.imul(a ^ 0x20, 0x01000193);
    b = Math.imul(b ^ 0x20, 0x5bd1e995) ^ (b >>> 15);
    for (let i = from2; i < to2; i++) {
      const c = lowerAscii(codes[i]!);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
  }
  HALVES[0] = a;
  HALVES[1] = b || 1;
}

/** An ASCII capital lower-cased, any other code as it is. */
export const lowerAscii = (c: number): number => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/** Fingerprints deferred at most (FingerprintSet.defer). */
const PENDING = 64;

/** Fill at which the table stops taking values: linear probing stays short below it. */
const MAX_FILL = 0.75;

/** A set's table as threads share it: the tags, and [count, full]. */
export interface SharedFingerprints {
  readonly max: number;
  readonly tags: SharedArrayBuffer;
  readonly state: SharedArrayBuffer;
}

export class FingerprintSet {
  /** Tags, allocated at the first value (a run that learns nothing costs nothing), or shared. */
  private tags: Uint32Array<ArrayBufferLike> | undefined;
  /** [count, full], shared with the other threads once the set is shared. */
  private state: Int32Array<ArrayBufferLike> = new Int32Array(2);
  private shared = false;

  /** `max`: fingerprints kept at most. `from`: another thread's set, shared (`share`). */
  constructor(readonly max: number, from?: SharedFingerprints) {
    if (from) {
      this.tags = new Uint32Array(from.tags);
      this.state = new Int32Array(from.state);
      this.shared = true;
    }
  }

  /** The table in shared memory (allocated now, what was learned copied in), for other threads to
   *  open with `new FingerprintSet(max, shared)`. The shared table is allocated at its bound like the
   *  private one; its pages too are mapped as first written. */
  share(): SharedFingerprints {
    this.flush();
    if (!this.shared) {
      const tags = new Uint32Array(new SharedArrayBuffer(this.slots * 4));
      if (this.tags) tags.set(this.tags);
      const state = new Int32Array(new SharedArrayBuffer(8));
      state.set(this.state);
      [this.tags, this.state, this.shared] = [tags, state, true];
    }
    return { max: this.max, tags: this.tags!.buffer as SharedArrayBuffer, state: this.state.buffer as SharedArrayBuffer };
  }

  /** Whether a fingerprint was refused for want of room. */
  get full(): boolean {
    this.flush();
    return this.state[1] !== 0;
  }

  /** `full` without adding the deferred fingerprints first: it may say false where they are about to
   *  be refused (they are, whoever asks), never true early. */
  get fullSoFar(): boolean {
    return this.state[1] !== 0;
  }

  /** Slots of the table: the first power of two that holds `max` at MAX_FILL. */
  private get slots(): number {
    return Math.max(1024, 2 ** Math.ceil(Math.log2(Math.ceil(this.max / MAX_FILL))));
  }

  /** Bytes the table takes, from its first value to the end of the run: four a slot. */
  get maxBytes(): number {
    return this.slots * 4;
  }

  get size(): number {
    this.flush();
    return this.state[0]!;
  }

  /** Bytes held by the table (0 until the first value). */
  get bytes(): number {
    this.flush();
    return this.tags?.byteLength ?? 0;
  }

  /** Adds a fingerprint; false when it was refused because the set is full. */
  add(token: string): boolean {
    this.flush();
    fingerprint(token);
    return this.insert(HALVES[0]!, HALVES[1]!);
  }

  /** add() of the text of ASCII `codes[from, to)` in lower case, with no string made: the learner's
   *  common case (redact.ts). Deferred, as addFoldedPair's, until the set is next read or `flush`ed. */
  addFolded(codes: Uint8Array, from: number, to: number): void {
    foldedFingerprint(codes, from, to, 0, 0);
    this.defer();
  }

  /** add() of two words of ASCII `codes` in lower case with a space between them, with no string made. */
  addFoldedPair(codes: Uint8Array, from: number, to: number, from2: number, to2: number): void {
    foldedFingerprint(codes, from, to, from2, to2);
    this.defer();
  }

  /** Fingerprints computed and not yet added, in order: added in one tight loop, their slots (random
   *  places in a table of megabytes, a cache miss each) are fetched together rather than one by one
   *  between other work. Every read of the set (has, size, full, share) adds them first. */
  private readonly pending = new Uint32Array(2 * PENDING);
  private pendingCount = 0;

  private defer(): void {
    this.pending[this.pendingCount++] = HALVES[0]!;
    this.pending[this.pendingCount++] = HALVES[1]!;
    if (this.pendingCount === this.pending.length) this.flush();
  }

  /** Adds the deferred fingerprints, in the order they came. A learner that another thread reads calls
   *  it when it is done with an exchange. */
  flush(): void {
    const n = this.pendingCount;
    if (n === 0) return;
    this.pendingCount = 0;
    for (let k = 0; k < n; k += 2) this.insert(this.pending[k]!, this.pending[k + 1]!);
  }

  private insert(a: number, b: number): boolean {
    const tags = (this.tags ??= new Uint32Array(this.slots));
    const mask = tags.length - 1;
    let i = a & mask;
    for (;; i = (i + 1) & mask) {
      for (; tags[i] !== 0; i = (i + 1) & mask) if (tags[i] === b) return true;
      // Threads adding at once may each pass this test: the count can pass `max` by at most one value
      // per thread, far below the table's size (max is three-quarters of it).
      if (this.state[0]! >= this.max) {
        this.state[1] = 1;
        return false;
      }
      if (!this.shared) break;
      // Another thread may have taken the slot since it was read empty: claim it, or probe on.
      const was = Atomics.compareExchange(tags, i, 0, b);
      if (was === 0) { Atomics.add(this.state, 0, 1); return true; }
      if (was === b) return true;
    }
    tags[i] = b;
    this.state[0] = this.state[0]! + 1;
    return true;
  }

  /** The ranges [from, to) of `s` of `min` characters or more, `s` whole left out, whose text was
   *  added: a learned value fused to other characters (xxsecretyy), pushed to `into`. Read on the
   *  output path only. Per start the first half grows a character at a time; the second is computed
   *  only where the first's home slot is taken (an empty one holds no value of that half). */
  within(s: string, min: number, into: Array<[number, number]>): void {
    this.flush();
    const tags = this.tags;
    if (!tags) return;
    const mask = tags.length - 1;
    const n = s.length;
    for (let i = 0; i + min <= n; i++) {
      let a = 0x811c9dc5;
      for (let j = i; j < n; j++) {
        a = Math.imul(a ^ s.charCodeAt(j), 0x01000193);
        const length = j + 1 - i;
        let slot = a & mask;
        if (length < min || length === n || tags[slot] === 0) continue;
        let b = 0x01000193 ^ length;
        for (let k = i; k <= j; k++) b = Math.imul(b ^ s.charCodeAt(k), 0x5bd1e995) ^ (b >>> 15);
        const tag = (b >>> 0) || 1;
        for (; tags[slot] !== 0; slot = (slot + 1) & mask) if (tags[slot] === tag) { into.push([i, j + 1]); break; }
      }
    }
  }

  has(token: string): boolean {
    this.flush();
    const tags = this.tags;
    if (!tags) return false;
    fingerprint(token);
    const a = HALVES[0]!;
    const b = HALVES[1]!;
    const mask = tags.length - 1;
    for (let i = a & mask; tags[i] !== 0; i = (i + 1) & mask) if (tags[i] === b) return true;
    return false;
  }
}
