import { allPages } from '../all-pages.js';
import { withClientChosenId } from '../client-chosen-id.js';
import { command } from '../command-line.js';
import { vigilHttp } from '../endpoint.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { readInputFile } from '../input-file.js';
import { print } from '../output.js';
import { secondsFlag } from '../seconds-flag.js';

// The agent-fleet routes answer shapes another part of Vigil defines; these commands show the
// answer as it comes (pretty JSON) and only pick out what their exit code needs.
const pretty = (data: unknown) => () => [JSON.stringify(data, null, 2)];
const enc = encodeURIComponent;

export const poolsCreate = command(
  {
    usage: 'vigil pools create FILE',
    summary: "Create a pool from a JSON file, or a YAML file with spec 113's map: block.",
    options: {},
    positionals: ['FILE'],
  },
  async ({ values, positionals }) => {
    const file = withClientChosenId(readInputFile(positionals[0] ?? ''), 'poolId');
    const http = vigilHttp(values);
    const { body } = await http.call(
      'POST',
      '/pools',
      file.isYaml ? { rawBody: { contentType: 'application/yaml', text: file.text } } : { body: file.data },
    );
    print(values.json, body, pretty(body));
    return ExitCode.ok;
  },
);

export const poolsStatus = command(
  {
    usage: 'vigil pools status POOL',
    summary: 'Show a pool: status, item counts, resolved config. Exit 1 when the pool FAILED, 3 when CANCELLED.',
    options: {},
    positionals: ['POOL'],
  },
  async ({ values, positionals }) => {
    const { body } = await vigilHttp(values).call('GET', `/pools/${enc(positionals[0] ?? '')}`);
    print(values.json, body, pretty(body));
    const status = (body as { status?: unknown } | undefined)?.status;
    return status === 'FAILED' ? ExitCode.failed : status === 'CANCELLED' ? ExitCode.timedOutOrCancelled : ExitCode.ok;
  },
);

export const dlqList = command(
  { usage: 'vigil dlq list POOL', summary: "List a pool's dead-lettered items with their history.", options: {}, positionals: ['POOL'] },
  async ({ values, positionals }) => {
    const body = await allPages(vigilHttp(values), `/pools/${enc(positionals[0] ?? '')}/dlq`, 'items');
    print(values.json, body, pretty(body));
    return ExitCode.ok;
  },
);

export const dlqRetry = command(
  {
    usage: 'vigil dlq retry POOL ITEM [--agent-timeout S]',
    summary: 'Make a dead-lettered item available again, optionally with a new agent timeout.',
    optionHelp: ['--agent-timeout S  the agent timeout for its next attempts (seconds)'],
    options: { 'agent-timeout': { type: 'string' } },
    positionals: ['POOL', 'ITEM'],
  },
  async ({ values, positionals }) => {
    const seconds = values['agent-timeout'] === undefined ? undefined : secondsFlag('agent-timeout', values['agent-timeout'], 0, { above: 0 });
    const { body } = await vigilHttp(values).call('POST', `/pools/${enc(positionals[0] ?? '')}/dlq/${enc(positionals[1] ?? '')}/retry`, {
      body: seconds === undefined ? {} : { agentTimeoutSecs: seconds },
    });
    print(values.json, body, pretty(body));
    return ExitCode.ok;
  },
);

export const escalationsList = command(
  {
    usage: 'vigil escalations list [--pool POOL]',
    summary: 'List escalations waiting for (or given) a human answer.',
    optionHelp: ['--pool POOL      only this pool'],
    options: { pool: { type: 'string' } },
    positionals: [],
  },
  async ({ values }) => {
    const body = await allPages(vigilHttp(values), `/escalations${values.pool ? `?poolId=${enc(values.pool)}` : ''}`, 'escalations');
    print(values.json, body, pretty(body));
    return ExitCode.ok;
  },
);

/** The flag each option's answer needs (the API's `timeoutSeconds`, `clarification`, `subtasks`), asked for by its flag's name. */
const FLAG_AN_OPTION_NEEDS: ReadonlyMap<string, { flag: 'timeout' | 'clarification' | 'subtasks'; what: string }> = new Map([
  ['increase_timeout', { flag: 'timeout', what: "S, the item's new limit in seconds" }],
  ['clarify', { flag: 'clarification', what: "TEXT, the text to add to the item's input" }],
  ['split', { flag: 'subtasks', what: 'FILE, a JSON or YAML list of { itemId, input }' }],
] as const);

export const escalationsAnswer = command(
  {
    usage: 'vigil escalations answer ID OPTION [--timeout S] [--clarification TEXT] [--subtasks FILE]',
    summary: 'Answer an escalation: split, clarify, increase_timeout or skip.',
    optionHelp: [
      '--timeout S          the new limit for increase_timeout',
      '--clarification TEXT the text for clarify',
      '--subtasks FILE      for split: a JSON or YAML list of { itemId, input } (or { subtasks: [...] })',
    ],
    options: { timeout: { type: 'string' }, clarification: { type: 'string' }, subtasks: { type: 'string' } },
    positionals: ['ID', 'OPTION'],
  },
  async ({ values, positionals }) => {
    const option = positionals[1] ?? '';
    const needed = FLAG_AN_OPTION_NEEDS.get(option);
    if (needed && values[needed.flag] === undefined) throw new UsageError(`${option} needs --${needed.flag} ${needed.what}.`);
    // Vigil keeps only the chosen option's fields, and an escalation is answered once: another's flag would be dropped unseen.
    for (const [itsOption, { flag }] of FLAG_AN_OPTION_NEEDS) {
      if (itsOption !== option && values[flag] !== undefined) {
        throw new UsageError(`--${flag} is for ${itsOption}, not ${option}: an escalation is answered once, with one option. Leave --${flag} out, or answer ${itsOption}.`);
      }
    }
    const answer = {
      option,
      ...(values.timeout !== undefined ? { timeoutSeconds: secondsFlag('timeout', values.timeout, 0, { above: 0 }) } : {}),
      ...(values.clarification !== undefined ? { clarification: values.clarification } : {}),
      ...(values.subtasks !== undefined ? { subtasks: subtasksIn(values.subtasks) } : {}),
    };
    const { body } = await vigilHttp(values).call('POST', `/escalations/${enc(positionals[0] ?? '')}/answer`, { body: answer });
    print(values.json, body, pretty(body));
    return ExitCode.ok;
  },
);

/** The subtasks of a split, as a list or under `subtasks:`; the API checks each entry. */
function subtasksIn(path: string): unknown {
  const { data } = readInputFile(path);
  const list = data !== null && typeof data === 'object' && !Array.isArray(data) && 'subtasks' in data ? data.subtasks : data;
  if (!Array.isArray(list)) throw new UsageError(`${path} holds no list of subtasks: write a list of { itemId, input }, or { subtasks: [...] }.`);
  return list;
}
