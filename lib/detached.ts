// A copy that holds nothing of what it was read from: for every layer (parsers, transport, reports)
// that keeps a string read from a body or a file past the moment it was read.

/** A copy of `v` (strings, plain objects and arrays of them) that holds nothing else: V8 keeps a
 *  slice of a long text (and a concatenation with one) as a view of the whole text, so a URL read
 *  from a recording held the whole chunk of the file it came from for as long as it was kept (the
 *  first 50 paths outside the interface held 107 MB of a 320 MiB HAR), and 200 characters shown of
 *  a legacy's 4 MB value held those 4 MB. */
export const detachedCopy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** V8 keeps a slice as a view from 13 characters on. */
const VIEW_FROM = 13;

/** detachedCopy of one string, without the JSON round trip (for a parser's every value): a
 *  concatenation is flattened into a string of its own before it is sliced, so the slice is a view
 *  of that copy alone. Shorter strings are copies already. */
export const detachedText = (s: string): string => (s.length >= VIEW_FROM ? (` ${s}`).slice(1) : s);

/** What `remembered` holds for an undefined answer. */
const NONE: unique symbol = Symbol('none');

/** `of` remembered for short keys: at most `entries` of them, emptied when full, each key kept as a
 *  detached copy (a name or header read from a body may be a view of the whole body, which a
 *  process-wide table would otherwise hold). Longer keys are worked out each time. */
export function remembered<V>(of: (key: string) => V, entries: number, keyLength: number): (key: string) => V {
  // An undefined answer (most names have no sensitivity) is held as NONE: one lookup per key, not two.
  const table = new Map<string, V | typeof NONE>();
  return (key) => {
    if (key.length > keyLength) return of(key);
    const known = table.get(key);
    if (known !== undefined) return (known === NONE ? undefined : known) as V;
    const value = of(key);
    if (table.size >= entries) table.clear();
    table.set(detachedCopy(key), value === undefined ? NONE : value);
    return value;
  };
}
