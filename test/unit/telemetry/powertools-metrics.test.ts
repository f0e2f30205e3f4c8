import { afterEach, describe, expect, it, vi } from 'vitest';
import { metrics, PowertoolsTelemetry } from '../../../shared/telemetry/powertools.js';
import { printedBy } from '../../support/printed-to-stdout.js';

describe('PowertoolsTelemetry metrics', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('prints one EMF record per dimensioned metric, with its dimensions', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const counted: string[] = [];
    const printed = await printedBy(() => new PowertoolsTelemetry({}, (name) => counted.push(name)).metric('JobTimedOut', { reason: 'stuck' }));
    const record = JSON.parse(printed.trim()) as Record<string, unknown>;
    expect(record).toMatchObject({ JobTimedOut: 1, reason: 'stuck', _aws: { CloudWatchMetrics: [expect.objectContaining({ Dimensions: [expect.arrayContaining(['reason'])] })] } });
    expect(counted).toEqual(['JobTimedOut']);
  });

  it('disabled (the local cloud): the metric is still counted in-process, and nothing is built or printed', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    const counted: string[] = [];
    const built = vi.spyOn(metrics, 'singleMetric');
    const printed = await printedBy(() => new PowertoolsTelemetry({}, (name) => counted.push(name)).metric('JobTimedOut', { reason: 'stuck' }));
    expect(printed).toBe('');
    expect(built).not.toHaveBeenCalled();
    expect(counted).toEqual(['JobTimedOut']);
    built.mockRestore();
  });
});
