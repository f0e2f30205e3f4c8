/**
 * A console page: `controls` render once per visit (inputs keep what the user types), `live`
 * re-renders on every poll, and is written to the DOM only when it changed.
 */
export interface Page {
  title: string;
  controls(): string;
  live(): Promise<string>;
  /** Handles a click on an element with `data-action` inside the page; returns a message to show. */
  act?(action: string, target: HTMLElement, root: HTMLElement): Promise<Flash | undefined>;
}

export interface Flash {
  kind: 'ok' | 'error';
  text: string;
}
