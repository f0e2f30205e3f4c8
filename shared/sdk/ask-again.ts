/** How soon a deadline Vigil answered past (its timer not fired yet, its clock virtual) is first asked about again. */
export const ASK_AGAIN_MS = 1_000;

/**
 * The longest wait between two asks about one deadline. Vigil may take its detection bound (70 s) to
 * end an overdue job: asked each second, that is 70 calls a workflow. Doubling up to 8 s makes it 11,
 * and a stop Vigil decided meanwhile is heard at the next ask: within 8 s, 13 s with the ask's own
 * 5 s, well within the 30 s in which a worker is promised to hear it.
 */
export const ASK_AGAIN_MAX_MS = 8_000;

/** The wait after the `asks`-th ask about one deadline: 1, 2, 4, 8, 8, … s. */
export const askAgainAfterMs = (asks: number): number => Math.min(ASK_AGAIN_MS * 2 ** Math.max(0, asks - 1), ASK_AGAIN_MAX_MS);
