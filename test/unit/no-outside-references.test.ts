import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Nothing the project ships points at files outside its repository. */
describe('the project documents itself', () => {
  const tracked = execFileSync('git', ['ls-files', '--', 'README.md', 'docs', 'shared', 'functions', 'infra'], { encoding: 'utf8' })
    .split('\n')
    .filter((path) => /\.(ts|md|json)$/.test(path));

  it('no shipped file mentions the team agreement or the shared folder beside the repository', () => {
    // Act
    const outside = /contract\.md|(^|[^./])\.\.\/shared\/|\/work\/shared/m;
    const offenders = tracked.filter((path) => outside.test(readFileSync(path, 'utf8')));

    // Assess
    expect(tracked.length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });

  it('the README links the API description, which exists', () => {
    // Assess
    expect(readFileSync('README.md', 'utf8')).toContain('(docs/api.md)');
    expect(readFileSync('docs/api.md', 'utf8')).toContain('GET /jobs/{jobId}/tokens');
  });
});
