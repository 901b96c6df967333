// The judging reference's two outputs of one run agree on its connections: the report written on
// demand (GET /__conformance/report) states the same line on connections closed at the bound (and
// refused, timed out) as the report written on stop, with the count of that moment. Only the stop
// report stated it, so a caller reading the reports during the run never learned of them.
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPORT_ROUTE, startJudgingReference } from '../lib/cli/judging-reference.js';
import { until } from './helpers/wait.js';

describe('the judging reference\'s report on demand', () => {
  it('states the line on a connection closed at the bound, with the count the stop report then shows', async () => {
    const r = await startJudgingReference({ connections: { max: 1 }, reportDir: mkdtempSync(join(tmpdir(), 'judging-reference-connections-')), reports: new Set(['summary']), print: () => undefined });
    // A request whose body never comes whole holds the one connection the bound allows.
    const { hostname, port } = new URL(r.url);
    const held = connect(Number(port), hostname, () => held.write('POST /supportstateuser HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"userName'));
    held.on('error', () => undefined);
    try {
      await until(() => r.connections.open === 1 && r.connections.waiting === 0, 'the held request to take the one connection');
      // The report's own connection closes the held one at the bound.
      const answer = await fetch(`${r.url}${REPORT_ROUTE}`);
      const onDemand = (await answer.json() as { warnings: string[] }).warnings;
      expect([answer.status, r.connections.stalled]).toEqual([200, 1]);
      const { report } = await r.stop();
      const line = report.warnings.find((w) => w.includes('connection(s) with a request in progress were closed'));
      expect(line).toContain('1 connection(s) with a request in progress were closed for a new connection at the bound of 1 open');
      expect(onDemand).toContain(line);
    } finally {
      held.destroy();
      await r.close();
    }
  });
});
