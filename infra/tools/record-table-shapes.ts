/**
 * Records the tables this checkout deploys as the released ones (infra/released-table-shapes.json),
 * which test/infra/table-upgrades.test.ts holds every later change to. Run it when a version is
 * released, and in the change that removes an index (README, "Upgrading a deployed Vigil"):
 *   npm run record-table-shapes
 * Offline, like `cdk synth`: cdk.json's context, no credentials, no Lambda bundles built.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { cdkJsonContext } from '../config/cdk-json-context.js';
import { buildVigil } from '../vigil-app.js';
import { deployedTableShapes, RELEASED_TABLE_SHAPES_FILE, serializedTableShapes } from './table-shapes.js';

const outdir = mkdtempSync(join(tmpdir(), 'vigil-table-shapes-'));
try {
  const app = new App({ outdir, context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  const stacks = buildVigil(app, {});
  const assembly = app.synth();
  writeFileSync(RELEASED_TABLE_SHAPES_FILE, serializedTableShapes(deployedTableShapes(stacks, (stack) => assembly.getStackByName(stack.stackName).template)));
  console.log(`wrote ${fileURLToPath(RELEASED_TABLE_SHAPES_FILE)}`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
