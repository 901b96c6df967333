// `npm run conformance -- --legacy-url LEGACY [--base-url CANDIDATE]`: the differential run. Every
// request (the probes, each --accounts request) goes to the legacy, the candidate, the legacy again
// (engine/differential.ts); the candidate is the run's target and is reported as usual, with a
// differences section and the legacy's verdict beside. Exit 0: no MUST failure and no difference
// beyond noise; 1: a difference or a MUST failure; 2: the run could not proceed (the legacy
// unreachable, or answering nothing: engine/differential.ts leaves a request it did not answer
// uncompared, so nothing is compared). Without --base-url the candidate is the embedded reference. With --har,
// the recording's requests of this interface are sent again too (its recorded answers are not used).
import type { Check } from '../checks/check.js';
import { accountRequests } from '../engine/accounts.js';
import { replayed, runDifferential, type DifferentialResult } from '../engine/differential.js';
import type { ExchangeSpec } from '../http/exchange.js';
import { HarProblem, harExchanges, harName, LeftOut } from '../traffic/har.js';
import { startReference, type RunningReference } from '../reference/server.js';
import { differentialSection, shownExampleValue } from '../reporting/differential.js';
import { displayLine } from '../reporting/display.js';
import { shardOptions, type Config } from './config.js';
import { openSession, setupOf } from './session.js';
import { abortOnSignals } from './stopping.js';
import { stoppedAtOnce } from './write-reports.js';
import { errorLine } from './error-line.js';

export async function differentialRun(config: Config, legacyUrl: string, checks: readonly Check[], dir: string, accounts: number | undefined): Promise<number> {
  let reference: RunningReference | undefined;
  try {
    if (!config.baseUrl) reference = await startReference({ namespaces: config.namespaces });
    const baseUrl = config.baseUrl ?? reference!.url;
    const session = openSession(setupOf(config, dir, { baseUrl, description: reference ? 'embedded reference implementation (candidate)' : 'candidate deployment' }, accounts));
    const redactor = session.redactor;
    session.announce();
    session.say(`conformance: comparing ${displayLine(baseUrl)} (${session.target.description}) with the legacy ${displayLine(legacyUrl)}, ${checks.length} checks each${accounts !== undefined ? `, ${accounts} accounts` : ''}${config.har ? `, replaying ${displayLine(config.har.map(harName).join(', '))}` : ''}`);
    const { ca, generate: _g, ...settings } = config;
    const left = new LeftOut();
    /** The recorded requests not sent to either deployment: counted, the first few named with why. */
    const notSent = { count: 0, named: [] as string[] };
    /** The recorded requests sent changed (their Expect left out): counted, the first few named. */
    const changed = { count: 0, named: [] as string[], how: '' };
    const stop = abortOnSignals('conformance', 'nothing more is sent; the reports follow the requests in flight', stoppedAtOnce(dir, 'conformance'));
    async function* cases(): AsyncGenerator<ExchangeSpec> {
      if (config.accounts) yield* accountRequests(config.accounts, config.headers, config.shard);
      for (const [i, file] of (config.har ?? []).entries()) yield* replayed(harExchanges(file, config.maxBodyBytes, config.har!.length > 1 ? `har${i + 1}` : 'har', left.add, stop), config.headers, (ex, why) => { if (notSent.named.length < LeftOut.NAMED) notSent.named.push(`${ex.id}: ${why}`); notSent.count++; }, (ex, how) => { if (changed.named.length < LeftOut.NAMED) changed.named.push(ex.id); changed.count++; changed.how = how; });
    }
    let result: DifferentialResult;
    try {
      result = await runDifferential({
        ...settings, baseUrl, legacyUrl, checks, extraHeaders: config.headers,
        ...(ca ? { ca: ca.pem } : {}),
        ...(config.accounts || config.har ? { cases: cases() } : {}),
        ...shardOptions(config),
        useProxyEnv: !reference,
        ...session.engine(), stop,
        // Examples kept as shown: redacted whole, then cut at the display bound.
        show: (value, sensitivity, typed) => shownExampleValue(redactor, value, sensitivity, typed),
      });
    } catch (e) {
      if (e instanceof HarProblem) { errorLine(`conformance: ${e.message}`); return 2; }
      throw e;
    }
    for (const w of left.warnings()) session.warn(w);
    if (notSent.count) session.warn(`${notSent.count} recorded request${notSent.count === 1 ? '' : 's'} not replayed to either deployment (the harness cannot send ${notSent.count === 1 ? 'it' : 'them'} as recorded): ${notSent.named.join('; ')}${notSent.count > notSent.named.length ? `; and ${notSent.count - notSent.named.length} more` : ''}`);
    if (changed.count) session.warn(`${changed.count} recorded request${changed.count === 1 ? '' : 's'} sent to both deployments ${changed.how}, so not as recorded: ${changed.named.join(', ')}${changed.count > changed.named.length ? `; and ${changed.count - changed.named.length} more` : ''}`);
    const stopped = result.candidate.stopped;
    if (stopped) session.warn(`stopped (${stopped}) before every request was sent, after ${result.compared + result.inconclusive} request(s) were sent to both: the run is incomplete`);
    // Without the legacy's answers nothing can be compared: the run could not proceed.
    if (result.legacy.verdict === 'unreachable') {
      errorLine(`conformance: cannot reach the legacy ${redactor.text(legacyUrl)}: ${redactor.line(result.legacy.unreachable ?? 'no answer')}`);
      return 2;
    }
    return await session.finish(result.candidate, { differential: differentialSection(result, redactor, config.failOn) });
  } finally {
    await reference?.close();
  }
}
