/** One step of a pool's `agent_template`: `{ claude: "/analyze ${item}" }` or `{ shell: "validate ${item.id}" }` (seed 003). */
export interface TemplateStep {
  type: string;
  text: string;
}

export function templateSteps(template: unknown): TemplateStep[] {
  if (!Array.isArray(template)) return [];
  return template.flatMap((step: unknown) => {
    if (step === null || typeof step !== 'object') return [];
    const [entry] = Object.entries(step as Record<string, unknown>);
    return entry && typeof entry[1] === 'string' ? [{ type: entry[0], text: entry[1] }] : [];
  });
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** Fills `${item}` (the input as JSON, or as is when text) and `${item.a.b}` (a field of the input; `item.id` falls back to the item id). */
export function interpolate(text: string, itemId: string, input: unknown): string {
  return text.replace(/\$\{item((?:\.[A-Za-z0-9_-]+)*)\}/g, (_, path: string) => {
    if (path === '') return asText(input);
    let value: unknown = input;
    for (const key of path.slice(1).split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined && path === '.id') return itemId;
    return asText(value);
  });
}

/** The argv that runs a step: `shell` through `sh -c`; `claude` through `--claude-cmd` with the text last; others through `sh -c`. */
export function stepArgv(step: TemplateStep, claudeCommand: string): string[] {
  if (step.type === 'claude') return [...claudeCommand.split(/\s+/).filter(Boolean), step.text];
  return ['sh', '-c', step.text];
}
