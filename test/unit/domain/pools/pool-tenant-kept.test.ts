import { describe, expect, it } from 'vitest';
import { cancelPool, completeIfDone, failPool, openCreatedPool, reopenPool } from '../../../../shared/domain/pools/pool-decisions.js';
import type { Pool } from '../../../../shared/domain/pools/pool.js';
import { at, poolWith } from './pool-fixtures.js';

const T = 'arn:aws:sts::111111111111:assumed-role/team-t';
const of = (status: Pool['status']): Pool => ({ ...poolWith({}, status), tenant: T });
const settled = { available: 0, running: 0, succeeded: 1, failed: 0, skipped: 0, dlq: 0, escalated: 0 };

// A pool's tenant is written once, by the create-only put: the owner check a client route makes on
// the pool then holds for the item writes that follow only if no decision ever changes it.
describe("every pool decision keeps the pool's tenant", () => {
  it.each([
    ['open', 'RUNNING', () => openCreatedPool(of('CREATING'))],
    ['cancel', 'CANCELLED', () => cancelPool(of('RUNNING'), 'stop', at(1))],
    ['fail', 'FAILED', () => failPool(of('RUNNING'), 'too many dead letters', at(1))],
    ['complete', 'COMPLETED', () => completeIfDone(of('RUNNING'), settled, at(1))],
    ['reopen', 'RUNNING', () => reopenPool({ ...of('COMPLETED'), finishedAt: at(1) })],
  ] as const)('%s → %s', (_name, status, decide) => {
    // Act
    const { state } = decide();
    // Assess
    expect(state).toMatchObject({ status, tenant: T });
  });
});
