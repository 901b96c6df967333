// npm run test:quick: the unit and in-process tests only (no file that spawns the CLI, a browser,
// npm or dotnet, and not the load test), for feedback while developing. npm test runs everything.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Not mergeConfig: it would add these to the base's include (every test) instead of replacing it.
// Not the base's projects either: the quick run is the harness's own tests, not the conformance suites.
const { projects: _projects, ...shared } = base.test ?? {};

export default defineConfig({
  test: {
    ...shared,
    testTimeout: 600_000,
    hookTimeout: 600_000,
    include: [
      'test/checks.test.ts', 'test/classify.test.ts', 'test/contract.test.ts', 'test/differential.test.ts', 'test/docs.test.ts',
      'test/hostile.test.ts', 'test/json-parse.test.ts', 'test/jsonp-vm.test.ts', 'test/layers.test.ts', 'test/openapi.test.ts',
      'test/pathological.test.ts', 'test/progress.test.ts', 'test/properties.test.ts', 'test/rate-clock.test.ts', 'test/redact.test.ts',
      'test/reference-golden.test.ts', 'test/reference-http.test.ts', 'test/report-redaction.test.ts', 'test/reporting.test.ts',
      'test/requests.test.ts', 'test/sensitivity-matrix.test.ts', 'test/tally.test.ts', 'test/servicestack-client.test.ts', 'test/transport.test.ts',
      'test/wsdl-soap-client.test.ts', 'test/xsd-contract.test.ts', 'test/xsd-independent.test.ts',
    ],
  },
});
