// What a run loads at its start: the modules of the other modes (HAR, accounts, proxy, differential)
// and the packages only one mode needs (fast-check for --generate,
// stream-json for a HAR the quick reader hands on, csv-parse for a CSV of accounts, saxes for a
// document the plain XML reader hands on) and undici's index (fetch, WebSocket, caches: the harness
// dispatches through its Agent alone) are left out of every other run. Each cost a share of the
// ~0.4 CPU-s every CLI start took; a static import anywhere on the path brings one back.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, ROOT } from './helpers/cli.js';

/** Every module a child loads, ES modules (a loader hook) and CommonJS ones (require's cache at exit), to `log`. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) { appendFileSync(process.env.LOADED_LOG, url + '\\n'); return next(url, context); }`;
const PRELOAD = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));
process.on('exit', () => appendFileSync(process.env.LOADED_LOG, Object.keys(createRequire(process.argv[1]).cache).join('\\n') + '\\n'));`;

function loaded(args: readonly string[]): Promise<{ code: number; modules: string[] }> {
  const log = join(mkdtempSync(join(tmpdir(), 'loaded-')), 'modules.txt');
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`, 'bin/run.mjs', 'cli/main', ...args], { cwd: ROOT, env: childEnv({ LOADED_LOG: log }), timeout: 120_000 }, (error) => {
      resolve({ code: error ? Number(error.code) : 0, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) });
    });
  });
}

/** The harness's modules of the modes a run of the probes is not. */
const OTHER_MODES = ['traffic/har', 'engine/accounts', 'cli/proxy-run', 'cli/differential'];
/** A module of lib/ (compiled or not) by its path under lib/, without extension. */
const libModule = (m: string) => /\/lib\/(.+)\.[jt]s$/.exec(m)?.[1];

/** The package a module path or URL lies in, by its node_modules folder. */
const packageOf = (m: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m)?.[1];

describe('a run loads what its mode uses', () => {
  it('a run of the probes loads undici\'s Agent but not its index, none of fast-check, stream-json, csv-parse or saxes, and no other mode\'s module', async () => {
    const r = await loaded(['--reports', 'summary', '--report-dir', mkdtempSync(join(tmpdir(), 'conformance-')), '--quiet']);
    expect(r.code).toBe(0);
    const packages = new Set(r.modules.map(packageOf));
    expect(['fast-check', 'pure-rand', 'stream-json', 'stream-chain', 'csv-parse', 'saxes'].filter((p) => packages.has(p))).toEqual([]);
    expect(r.modules.some((m) => m.endsWith('node_modules/undici/lib/dispatcher/agent.js'))).toBe(true);
    expect(r.modules.filter((m) => m.endsWith('node_modules/undici/index.js'))).toEqual([]);
    expect(r.modules.map(libModule).filter((m) => OTHER_MODES.includes(m!))).toEqual([]);
    expect(r.modules.map(libModule)).toContain('engine/run');
  });

  it('--generate loads fast-check: the check above sees what a run loads', async () => {
    const r = await loaded(['--generate', '1', '--seed', '1', '--reports', 'summary', '--report-dir', mkdtempSync(join(tmpdir(), 'conformance-')), '--quiet']);
    expect(r.code).toBe(0);
    expect(r.modules.some((m) => packageOf(m) === 'fast-check')).toBe(true);
  });
});
