// Shared by every command (the harness, the reference, the report): it sits below lib/cli and
// lib/reference, so neither imports the other.
// Each command-line option is declared once, in a table: its type, help, environment name, default,
// bounds, and how the report shows it. The parser, the usage text, the .env reading and the shown
// configuration are all derived from the table, so adding an option is one entry.
import { parseArgs } from 'node:util';

export type OptionKind = 'string' | 'boolean' | 'integer' | 'list' | 'repeatable';

export interface OptionSpec {
  readonly kind: OptionKind;
  /** Placeholder in the usage text ("URL", "N"). */
  readonly arg?: string;
  readonly help: string;
  /** Environment variable (and .env key) that supplies it when the flag is absent. */
  readonly env?: string;
  readonly short?: string;
  /** Integers: inclusive bounds. */
  readonly min?: number;
  readonly max?: number;
  /** Default, as the usage text states it (the value itself is the caller's). */
  readonly defaultText?: string;
  /** How reports show the value: as it is (default), hidden (a secret), or not at all. */
  readonly shown?: 'as-is' | 'secret' | 'no';
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

type ValueOf<S extends OptionSpec> = S['kind'] extends 'boolean' ? boolean
  : S['kind'] extends 'integer' ? number
    : S['kind'] extends 'list' | 'repeatable' ? string[]
      : string;

/** Parsed values, by flag name; an option given neither as a flag nor in the environment is absent. */
export type OptionValues<T extends OptionTable> = { -readonly [K in keyof T]?: ValueOf<T[K]> };

export type Env = Readonly<Record<string, string | undefined>>;

export type Parsed<T extends OptionTable> =
  | { readonly ok: true; readonly values: OptionValues<T>; readonly positionals: string[] }
  | { readonly ok: false; readonly error: string };

/** Flags, then the environment; every problem one line naming the option. */
export function parseOptions<T extends OptionTable>(table: T, argv: readonly string[], env: Env, positionals = false): Parsed<T> {
  let raw: Record<string, string | boolean | string[] | undefined>;
  let rest: string[];
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.entries(table).map(([name, s]) => [name, {
        type: s.kind === 'boolean' ? 'boolean' as const : 'string' as const,
        ...(s.kind === 'repeatable' ? { multiple: true } : {}),
        ...(s.short ? { short: s.short } : {}),
      }])),
      strict: true, allowPositionals: positionals,
    });
    raw = parsed.values as typeof raw;
    rest = parsed.positionals;
  } catch (e) {
    return { ok: false, error: (e as Error).message.split('\n')[0] ?? 'bad arguments' };
  }
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const fromEnv = spec.env ? env[spec.env] : undefined;
    const given = raw[name] ?? (fromEnv === '' ? undefined : fromEnv);
    if (given === undefined) continue;
    const where = raw[name] !== undefined ? `--${name}` : spec.env!;
    switch (spec.kind) {
      case 'boolean':
        if (typeof given === 'string' && !/^(true|false|1|0)$/.test(given)) return { ok: false, error: `${where} must be true or false, not ${JSON.stringify(given)}` };
        values[name] = given === true || given === 'true' || given === '1';
        break;
      case 'integer': {
        const text = String(given);
        const n = Number(text);
        const [min, max] = [spec.min ?? 0, spec.max ?? Number.MAX_SAFE_INTEGER];
        if (!/^-?\d+$/.test(text) || n < min || n > max) return { ok: false, error: `${where} must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}` };
        values[name] = n;
        break;
      }
      case 'list': {
        const items = String(given).split(',').map((s) => s.trim()).filter(Boolean);
        if (!items.length) return { ok: false, error: `${where} needs at least one value` };
        values[name] = items;
        break;
      }
      case 'repeatable':
        values[name] = Array.isArray(given) ? given : [String(given)];
        break;
      default:
        values[name] = String(given);
    }
  }
  return { ok: true, values: values as OptionValues<T>, positionals: rest };
}

/** The options part of a usage text, one line (or more) per option, from the table. */
export function usageOf(table: OptionTable): string {
  const rows = Object.entries(table).map(([name, s]) => {
    const flag = `${s.short ? `-${s.short}, ` : ''}--${name}${s.arg ? ` ${s.arg}` : ''}`;
    const extra = [s.env ? `env ${s.env}` : '', s.defaultText ? `default ${s.defaultText}` : ''].filter(Boolean).join('; ');
    return [flag, `${s.help}${extra ? ` (${extra})` : ''}${s.kind === 'repeatable' ? '; repeatable' : ''}`] as const;
  });
  const width = Math.min(26, Math.max(...rows.map(([f]) => f.length)) + 2);
  return rows.map(([f, h]) => (f.length + 2 > width ? `  ${f}\n  ${' '.repeat(width)}${h}` : `  ${f.padEnd(width)}${h}`)).join('\n');
}

/** The values as reports show them: secrets as «hidden», options marked not shown left out. */
export function shownOptions<T extends OptionTable>(table: T, values: OptionValues<T>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const v = values[name as keyof T];
    if (v === undefined || spec.shown === 'no') continue;
    out[name] = spec.shown === 'secret' ? '«hidden»' : v;
  }
  return out;
}

/** Environment variables the table reads (for .env.example and the docs test). */
export const envNames = (table: OptionTable): string[] => Object.values(table).flatMap((s) => (s.env ? [s.env] : []));
