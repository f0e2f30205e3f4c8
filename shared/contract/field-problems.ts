import type { $ZodIssue } from 'zod/v4/core';
import type { FieldProblem } from './error-body.js';

/** Says what an unknown key is, given the path of the object that holds it. */
export type UnknownKeyMessage = (path: readonly PropertyKey[], key: string) => string;

/**
 * One `details` entry per bad field (contract: `field`, `message`, and `allowed` where there is a
 * fixed set), for a route's schema and a pool's config alike so their refusals cannot drift apart.
 */
export function fieldProblemsOf(issues: readonly $ZodIssue[], unknownKey: UnknownKeyMessage): FieldProblem[] {
  return issues.flatMap((issue): FieldProblem[] => {
    // An unknown key is reported on its parent object: name the key itself, one detail each.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: unknownKey(issue.path, key) }));
    const field = issue.path.join('.') || '(body)';
    if (issue.code === 'invalid_value') return [{ field, message: issue.message, allowed: [...issue.values] }];
    // A record's key (a command type) says what is wrong with it, not only that it is a bad key.
    if (issue.code === 'invalid_key') return [{ field, message: `is not a valid key: ${issue.issues.map((inner) => inner.message).join('; ')}` }];
    return [{ field, message: issue.message }];
  });
}
