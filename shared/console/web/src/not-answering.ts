import { esc } from './escape.js';
import type { ListenerState } from './listener-rounds.js';

/**
 * Why a listener's news is missing or old, for a person: its call under way is overdue, its last call
 * failed, or `failed` reads a failure in its last answer (a page that shows those itself leaves it out).
 */
export function troubles<Answer>({ answer, error, overdueMs }: ListenerState<Answer>, failed: (answer: Answer) => string | undefined = () => undefined): string[] {
  return [
    ...(overdueMs !== undefined ? [`no answer for ${Math.round(overdueMs / 1000)} s`] : []),
    ...(error !== undefined ? [`${String(error)}${answer !== undefined ? ' (its last answer is shown)' : ''}`] : []),
    ...(answer !== undefined ? [failed(answer)].filter((text) => text !== undefined) : []),
  ];
}

/** One line naming every listener that is not answering, and why; nothing when all answer. */
export function notAnswering<Answer>(states: ReadonlyArray<ListenerState<Answer>>, failed?: (answer: Answer) => string | undefined): string {
  const problems = states.flatMap((state) => troubles(state, failed).map((text) => `${state.source}: ${text}`));
  return problems.length ? `<p class="problem">Not answering: ${esc(problems.join('; '))}</p>` : '';
}
