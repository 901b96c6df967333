// Written answers kept for reuse: the reference's population generates a record per account, which
// costs far more CPU than sending it, and clients ask the same accounts again. An LRU bounded by
// bytes, so any number of distinct accounts costs at most the bound.

/** Per entry, beside its key and body: the Map entry, the answer object and its header objects. */
export const ENTRY_OVERHEAD_BYTES = 400;

/** The default bound of the reference's answer cache (README, bounds table). */
export const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

export class ByteLru<V> {
  /** Insertion order is recency order: a hit is moved to the end, the oldest is first. */
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number { return this.used; }
  get size(): number { return this.entries.size; }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /** Keeps `value` as `bytes` big (its key counted too); an entry larger than the whole bound is not kept. */
  set(key: string, value: V, bytes: number): void {
    const size = bytes + key.length * 2 + ENTRY_OVERHEAD_BYTES;
    const old = this.entries.get(key);
    if (old) { this.entries.delete(key); this.used -= old.bytes; }
    if (size > this.maxBytes) return;
    this.entries.set(key, { value, bytes: size });
    this.used += size;
    for (const [k, e] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
  }
}
