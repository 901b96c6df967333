// npm run test:quick: the unit and in-process tests only (no file that spawns the CLI, a browser,
// npm or dotnet, and not the load test), for feedback while developing. npm test runs everything.
import { defineConfig } from 'vitest/config';
import base, { IN_PROCESS } from './vitest.config.js';

// Not mergeConfig: it would add these to the base's include (every test) instead of replacing it.
// Not the base's projects either: the quick run is the harness's own tests, not the conformance suites.
const { projects: _projects, ...shared } = base.test ?? {};

export default defineConfig({
  test: {
    ...shared,
    testTimeout: 600_000,
    hookTimeout: 600_000,
    include: IN_PROCESS,
  },
});
