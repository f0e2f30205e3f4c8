import { describe, expect, it } from 'vitest';
import { ListenerRounds } from '../../../shared/console/web/src/listener-rounds.js';

describe('each listener asked on its own', () => {
  it('a round waits for a hanging listener no longer than its patience, keeps the others’ answers, and names the hanging one overdue', async () => {
    // Prepare: eu-west-1 never answers.
    const asked: string[] = [];
    const rounds = new ListenerRounds((source) => {
      asked.push(source);
      return source === 'eu-west-1' ? new Promise<string>(() => {}) : Promise.resolve(`jobs of ${source}`);
    }, 50);
    // Act
    const started = Date.now();
    await rounds.round(['us-east-1', 'eu-west-1']);
    const waited = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
    await rounds.round(['us-east-1', 'eu-west-1']);
    // Assess
    expect(waited).toBeLessThan(1_000);
    const [east, west] = rounds.states(['us-east-1', 'eu-west-1']);
    expect(east).toEqual({ source: 'us-east-1', answer: 'jobs of us-east-1' });
    expect(west).toEqual({ source: 'eu-west-1', overdueMs: expect.any(Number) });
    // The hanging one is not asked again while its call is under way.
    expect(asked).toEqual(['us-east-1', 'eu-west-1', 'us-east-1']);
  });

  it('a failed call is kept as that listener’s latest news', async () => {
    const rounds = new ListenerRounds(() => Promise.reject(new TypeError('Failed to fetch')), 50);
    await rounds.round(['gate']);
    expect(rounds.states(['gate'])).toEqual([{ source: 'gate', error: new TypeError('Failed to fetch') }]);
  });

  it('a failed call after an answer keeps that answer beside the failure, and the next answer clears the failure', async () => {
    // Prepare: the gate answers, then fails once, then answers again.
    const replies: Array<() => Promise<string>> = [
      () => Promise.resolve('first'),
      () => Promise.reject(new TypeError('Failed to fetch')),
      () => Promise.resolve('third'),
    ];
    const rounds = new ListenerRounds(() => (replies.shift() ?? (() => Promise.resolve('later')))(), 50);
    await rounds.round(['gate']);
    // Act
    await rounds.round(['gate']);
    const afterFailure = rounds.states(['gate']);
    await rounds.round(['gate']);
    // Assess
    expect(afterFailure).toEqual([{ source: 'gate', answer: 'first', error: new TypeError('Failed to fetch') }]);
    expect(rounds.states(['gate'])).toEqual([{ source: 'gate', answer: 'third' }]);
  });
});
