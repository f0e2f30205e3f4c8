import { describe, expect, it } from 'vitest';
import { gateJobListing } from '../../../shared/domain/history/job-listing.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { DEFAULT_TENANT, ownedBy, storedTenant } from '../../../shared/domain/tenant.js';

const T = 'arn:aws:sts::111111111111:assumed-role/team-t';
const T0 = Date.UTC(2031, 0, 15, 10, 0, 0, 0);

describe('who owns a job', () => {
  it('a job with a tenant is that tenant\'s alone; one without (from before tenants) is the default tenant\'s', () => {
    expect(ownedBy({ tenant: T }, T)).toBe(true);
    expect(ownedBy({ tenant: T }, DEFAULT_TENANT)).toBe(false);
    expect(ownedBy({ tenant: T }, `${T}x`)).toBe(false);
    expect(ownedBy({}, DEFAULT_TENANT)).toBe(true);
    expect(ownedBy({}, T)).toBe(false);
  });

  it('the default tenant is stored as no tenant, so new items read like old ones', () => {
    expect(storedTenant(DEFAULT_TENANT)).toEqual({});
    expect(storedTenant(undefined)).toEqual({});
    expect(storedTenant(T)).toEqual({ tenant: T });
  });

  it('a gate job and its listing row record the submitter\'s tenant (none for the default tenant)', () => {
    const submission = { jobId: 'job-1', timeoutSeconds: 60, datacenters: { 'us-east-1': {} } };
    const ofT = startGateJob({ ...submission, tenant: T }, 'digest', T0).state;
    const ofDefault = startGateJob({ ...submission, tenant: DEFAULT_TENANT }, 'digest', T0).state;
    expect(ofT.tenant).toBe(T);
    expect(gateJobListing(ofT).tenant).toBe(T);
    expect(ofDefault).not.toHaveProperty('tenant');
    expect(gateJobListing(ofDefault)).not.toHaveProperty('tenant');
  });
});
