/**
 * A console page: `controls` render once per visit (inputs keep what the user types), `live`
 * re-renders on every poll, and is written to the DOM only when it changed (keeping what the
 * operator typed or opened in elements marked `data-keep`, see keep-operator-state.ts).
 */
export interface Page {
  title: string;
  controls(): string;
  live(): Promise<string>;
  /** The live part again from what the last `live` read, without a request: on each keystroke in the controls. */
  view?(): string;
  /** Handles a click on an element with `data-action` inside the page; returns a message to show. */
  act?(action: string, target: HTMLElement, root: HTMLElement): Promise<Flash | undefined>;
}

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}
