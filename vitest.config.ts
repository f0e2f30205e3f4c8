import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import LongFilesFirst from './test/support/long-files-first.js';

/**
 * The test tiers, one vitest project each, so a tier runs on its own (`npm run test:<tier>`) and
 * `npm test` runs every project. A tier is a set of folders under `test/`.
 */
const tiers = {
  domain: ['test/unit', 'test/domain'],
  app: ['test/app'],
  integration: ['test/integration'],
  e2e: ['test/e2e'],
  emulator: ['test/emulator'],
  infra: ['test/infra'],
  simulation: ['test/sim'],
} as const;

const testsUnder = (folders: readonly string[]) => folders.map((folder) => `${folder}/**/*.test.ts`);

/**
 * Tiers run in groups, one group after another, so the tests that race the wall clock (a real local
 * cloud, real processes, a browser) never share the cores with the CPU-bound ones (thousands of
 * simulated seeds, CDK synthesis and bundling). The CPU-bound tiers share one group: its long files
 * start first (test/support/long-files-first.ts) and the many short ones fill the cores around them;
 * as two groups, each ended on one long file with a core idle.
 */
const groupOf: Record<keyof typeof tiers | 'other', number> = {
  integration: 0,
  e2e: 0,
  other: 1,
  domain: 2,
  app: 2,
  emulator: 2,
  infra: 2,
  simulation: 2,
};

/**
 * Files of a group at once. Vitest's default, one less than the cores, runs one file at a time on a
 * 2-core machine. The local cloud's real-time tests (integration, e2e) keep that; the others fill
 * every core: they order their events explicitly (virtual clocks, injected stores, seeds), or, with
 * real processes (the CLI, SDK and runner), poll with deadlines loose enough for a shared core.
 */
const filesAtOnce = (group: number) => (group === groupOf.e2e ? Math.max(availableParallelism() - 1, 1) : availableParallelism());

/**
 * Tiers whose files share one module cache per worker instead of importing everything afresh: none
 * of their files mocks a module or keeps a module's state between files (the few that set an
 * environment variable restore it). The infra tier imports aws-cdk-lib once per worker this way (the
 * tier takes 41 s instead of 84 s). The simulation tier stays isolated: its mutant tests replace
 * domain modules with `vi.mock`. The local cloud's tiers (integration, e2e) stay isolated too: shared,
 * they ran first in the run, beside the emulator setup's venv install, for 7 s saved in CI.
 */
const sharesModules: ReadonlySet<keyof typeof tiers> = new Set(['app', 'domain', 'infra']);

function tier(name: keyof typeof tiers): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      include: testsUnder(tiers[name]),
      sequence: { groupOrder: groupOf[name] },
      maxWorkers: filesAtOnce(groupOf[name]),
      ...(sharesModules.has(name) ? { isolate: false } : {}),
      // Only the emulator tier shares one AWS API emulator per run (see the setup file).
      ...(name === 'emulator' ? { globalSetup: ['test/support/emulator-global-setup.ts'] } : {}),
    },
  };
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    sequence: { sequencer: LongFilesFirst },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // CI also keeps a machine-readable result, from which .ci/run prints its closing count line.
    reporters: process.env['CI'] ? ['default', 'json'] : ['default'],
    outputFile: { json: '.test-results/vitest.json' },
    projects: [
      ...(Object.keys(tiers) as Array<keyof typeof tiers>).map(tier),
      // Catch-all: a test file in a folder no tier names yet still runs with `npm test`, never silently lost.
      {
        extends: true,
        test: {
          name: 'other',
          include: ['test/**/*.test.ts'],
          exclude: testsUnder(Object.values(tiers).flat()),
          sequence: { groupOrder: groupOf.other },
          maxWorkers: filesAtOnce(groupOf.other),
          // Its CLI, runner and SDK files spawn the `vigil` command by the dozen: from one bundle built per run.
          globalSetup: ['test/support/vigil-cli-bundle-setup.ts'],
        },
      },
    ],
  },
});
