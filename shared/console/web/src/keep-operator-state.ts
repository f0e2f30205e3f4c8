/**
 * Rewrites the polled part of a page without undoing what the operator did in it: what was typed in
 * a field, which `<details>` were opened, where the cursor was. An element says it is to be kept with
 * `data-keep="<a key unique in the page>"`; its state goes to the element of the same key in the new
 * markup, if there is one.
 */
type Keepable = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | HTMLDetailsElement;

interface Kept {
  value?: string;
  checked?: boolean;
  open?: boolean;
}

function keyed(root: HTMLElement): Map<string, Keepable> {
  const found = new Map<string, Keepable>();
  for (const element of root.querySelectorAll<Keepable>('[data-keep]')) found.set(element.dataset['keep'] ?? '', element);
  return found;
}

function stateOf(element: Keepable): Kept {
  if (element instanceof HTMLDetailsElement) return { open: element.open };
  if (element instanceof HTMLInputElement && (element.type === 'checkbox' || element.type === 'radio')) return { checked: element.checked };
  return { value: element.value };
}

function restore(element: Keepable, kept: Kept): void {
  if (element instanceof HTMLDetailsElement) element.open = kept.open ?? element.open;
  else if (element instanceof HTMLInputElement && kept.checked !== undefined) element.checked = kept.checked;
  else if (kept.value !== undefined) element.value = kept.value;
}

/** The focused kept field and its selection (a number field has none). */
function focusIn(root: HTMLElement): { key: string; start: number | null; end: number | null } | undefined {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || !root.contains(active) || active.dataset['keep'] === undefined) return undefined;
  const text = active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement ? active : undefined;
  return { key: active.dataset['keep'], start: text?.selectionStart ?? null, end: text?.selectionEnd ?? null };
}

export function rewriteKeepingOperatorState(root: HTMLElement, html: string): void {
  const before = new Map([...keyed(root)].map(([key, element]) => [key, stateOf(element)]));
  const focus = focusIn(root);
  root.innerHTML = html;
  const after = keyed(root);
  for (const [key, element] of after) {
    const kept = before.get(key);
    if (kept) restore(element, kept);
  }
  const refocus = focus && after.get(focus.key);
  if (!focus || !refocus) return;
  refocus.focus();
  if ((refocus instanceof HTMLInputElement || refocus instanceof HTMLTextAreaElement) && focus.start !== null && focus.end !== null) {
    refocus.setSelectionRange(focus.start, focus.end);
  }
}
