// @lfnlab/grafana/testing: what the backend's tests need to run every dashboard query against a
// real influxd loaded with points its own writer made (the writer lives in the backend, so those
// tests do too), and the one private influxd all of the backend's storage tests start. Test support
// only, outside src so never built into dist; the name is an alias (root vitest.config.ts,
// backend/tsconfig.test.json), not an export of the package.
export { nameProblems, queriesOf, type SchemaLike, type Selection } from './grafana.js';
export {
  ensureInfluxd,
  findInfluxd,
  freePort,
  type InfluxResult,
  influxdSuiteTitle,
  type RunningInfluxd,
  type StartInfluxdOptions,
  startInfluxd,
} from './influxd.js';
export { resolveVariables, runAllQueries } from './queries.js';
