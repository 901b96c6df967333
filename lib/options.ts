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
    const err = e as NodeJS.ErrnoException;
    const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec(err.message)?.[1] : undefined;
    if (unknown !== undefined) {
      const near = nearest(unknown.replace(/^-+/, '').split('=')[0]!, Object.keys(table));
      return { ok: false, error: `unknown option ${unknown}${near ? `; did you mean --${near}?` : ' (--help lists the options)'}` };
    }
    // "--timeout -5": parseArgs will not take a value that looks like an option, and says only that it is "ambiguous".
    const dashed = /^Option '(--[^']+)' argument is ambiguous/.exec(err.message)?.[1];
    if (dashed) return { ok: false, error: `${dashed}: a value that begins with "-" is given as ${dashed}=VALUE` };
    return { ok: false, error: err.message.split('\n')[0] ?? 'bad arguments' };
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

/** The options part of a usage text, from the table, wrapped to `width` columns (the terminal's, or
 *  100 when output is not a terminal). */
export function usageOf(table: OptionTable, width = helpWidth()): string {
  const rows = Object.entries(table).map(([name, s]) => {
    const flag = `${s.short ? `-${s.short}, ` : ''}--${name}${s.arg ? ` ${s.arg}` : ''}`;
    const extra = [s.env ? `env ${s.env}` : '', s.defaultText ? `default ${s.defaultText}` : ''].filter(Boolean).join('; ');
    return [flag, `${s.help}${extra ? ` (${extra})` : ''}${s.kind === 'repeatable' ? '; repeatable' : ''}`] as const;
  });
  const column = Math.min(26, Math.max(...rows.map(([f]) => f.length)) + 2);
  const indent = ' '.repeat(2 + column);
  return rows.map(([f, h]) => {
    const lines = wrap(h, Math.max(30, width - indent.length));
    const first = f.length + 2 > column ? `  ${f}\n${indent}${lines[0]}` : `  ${f.padEnd(column)}${lines[0]}`;
    return [first, ...lines.slice(1).map((l) => `${indent}${l}`)].join('\n');
  }).join('\n');
}

/** Help's width: the terminal's columns, else 100. */
export const helpWidth = (): number => (process.stdout.isTTY && process.stdout.columns ? Math.max(60, process.stdout.columns) : 100);

/** Text broken at spaces into lines of at most `width` characters (a longer word stands alone). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) { lines.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

/** The option name closest to a mistyped one (edit distance at most a third of its length, or 1). */
function nearest(typed: string, names: readonly string[]): string | undefined {
  let best: [string, number] | undefined;
  for (const name of names) {
    const d = distance(typed.toLowerCase(), name);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best[1])) best = [name, d];
  }
  return best?.[0];
}

/** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
export function distance(a: string, b: string): number {
  let [before, row] = [[] as number[], Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) next[j] = Math.min(next[j]!, before[j - 2]! + 1);
    }
    [before, row] = [row, next];
  }
  return row[b.length]!;
}

const INSTALLED = Symbol.for('soap-json-conformance.installed');

/** The command the user typed to start a program, for usage lines and hints: the installed command
 *  (bin/cli.mjs marks the process), or `npm run <script> --` in a clone. */
export function commandOf(script: 'conformance' | 'reference' | 'report'): string {
  return (globalThis as Record<symbol, unknown>)[INSTALLED] === true
    ? `npx soap-json-conformance${script === 'conformance' ? '' : ` ${script}`}`
    : `npm run ${script} --`;
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
