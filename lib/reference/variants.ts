// The named variants of the reference: faults (each breaks one rule the harness checks) and
// styles (each a legitimate way of writing the same data). Looked up by name from the CLI.
import type { Variant } from './profile.js';

/** A fault names the checks it must trip; more than one only where breaking the rule breaks them all. */
export interface Fault extends Variant {
  readonly breaks: readonly string[];
  /** Set when only some inputs trigger the fault, so the probes never see it: the evidence it needs.
   *  The sensitivity matrix (probes only) leaves it out; test/generated.test.ts proves it instead. */
  readonly evidence?: 'generated';
}

/** A fault breaks a rule (it says which checks must fail); a style does not. */
export const isFault = (v: Variant): v is Fault => 'breaks' in v;

export { FAULTS } from './faults.js';
export { STYLES } from './styles.js';

export type Lookup<T> = { ok: true; variants: T[] } | { ok: false; error: string };

export function findVariants<T extends Variant>(list: readonly T[], names: readonly string[]): Lookup<T> {
  const variants: T[] = [];
  for (const name of names) {
    const found = list.find((v) => v.name === name);
    if (!found) return { ok: false, error: `unknown name ${JSON.stringify(name)}; --list shows them` };
    variants.push(found);
  }
  return { ok: true, variants };
}
