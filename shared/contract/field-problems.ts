import type { $ZodIssue } from 'zod/v4/core';
import { boundedProblems } from './bounded-problems.js';
import type { FieldProblem } from './error-body.js';

/** Says what an unknown key is, given the path of the object that holds it. */
type UnknownKeyMessage = (path: readonly PropertyKey[], key: string) => string;

/**
 * A refusal's `details` (contract: one entry per bad field, `field`, `message`, and `allowed` where
 * there is a fixed set; bounded) and the sentence naming them, for a route's schema and a pool's
 * config alike so their refusals cannot drift apart.
 */
export function boundedFieldProblems(issues: readonly $ZodIssue[], unknownKey: UnknownKeyMessage): { details: FieldProblem[]; sentence: string } {
  return boundedProblems(fieldProblemsOf(issues, unknownKey), ({ field, message }) => `${field}: ${message}`);
}

function fieldProblemsOf(issues: readonly $ZodIssue[], unknownKey: UnknownKeyMessage): FieldProblem[] {
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
