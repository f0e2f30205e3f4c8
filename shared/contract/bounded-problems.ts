/**
 * A refusal names at most this many problems, each in at most `MAX_PROBLEM_TEXT` characters: a body
 * of 100,000 unknown keys would otherwise be answered with a list ten times its size, past the 6 MB
 * a Lambda answer may hold, and the caller would get a 5xx instead of the 400.
 */
export const MAX_NAMED_PROBLEMS = 50;
export const MAX_PROBLEM_TEXT = 300;

export const clipText = (text: string): string => (text.length > MAX_PROBLEM_TEXT ? `${text.slice(0, MAX_PROBLEM_TEXT - 1)}…` : text);

const clipStrings = <T extends object>(problem: T): T =>
  Object.fromEntries(Object.entries(problem).map(([key, value]) => [key, typeof value === 'string' ? clipText(value) : value])) as T;

/** The first problems, clipped, for `details`, and one sentence naming them and counting the rest. */
export function boundedProblems<T extends object>(problems: readonly T[], describe: (problem: T) => string): { details: T[]; sentence: string } {
  const details = problems.slice(0, MAX_NAMED_PROBLEMS).map(clipStrings);
  const rest = problems.length - details.length;
  const named = details.map(describe).join('; ');
  return { details, sentence: rest > 0 ? `${named}; and ${rest} more like these` : named };
}

/** Names (region names, ids) for a sentence: the first `MAX_NAMED_PROBLEMS`, clipped, and a count of the rest. */
export function boundedNames(names: readonly string[]): string {
  const named = names.slice(0, MAX_NAMED_PROBLEMS).map(clipText).join(', ');
  const rest = names.length - Math.min(names.length, MAX_NAMED_PROBLEMS);
  return rest > 0 ? `${named}, and ${rest} more` : named;
}
