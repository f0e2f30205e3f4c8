import { parse as parseYaml } from 'yaml';
import { InvalidPoolConfigError } from '../domain/pools/pool-errors.js';
import { clipText } from './bounded-problems.js';
import { duplicateJsonKey, duplicateKeyMessage } from './duplicate-json-key.js';
import { boundedFieldProblems } from './field-problems.js';
import type { PoolConfigInput } from '../domain/pools/pool-config.js';
import { createPoolBody, createPoolYaml, IGNORED_MAP_KEYS } from './pool-requests.js';

export interface PoolSubmission {
  poolId?: string;
  items: Array<{ itemId: string; input?: unknown }>;
  config: PoolConfigInput;
}

const unknownConfigKey = (): string => 'is not a known field; remove it or check its spelling';

/**
 * YAML 1.1's `!!timestamp`, `!!set`, `!!binary` and `!!omap` would become a Date, a Set, bytes or
 * pairs that JSON (and so an item's input) cannot carry: read them as what they are written as (the
 * text, a map of nulls, the base64 text, a list), without a warning per tag in the logs.
 */
const YAML_AS_JSON = { resolveKnownTags: false, logLevel: 'error' } as const;

const isYaml = (contentType: string | undefined) => /\b(application|text)\/(x-)?yaml\b/i.test(contentType ?? '');

function withoutIgnoredKeys(config: Record<string, unknown> | undefined): PoolConfigInput {
  if (!config) return {};
  const kept = { ...config };
  for (const key of IGNORED_MAP_KEYS) delete kept[key];
  return kept as PoolConfigInput;
}

/**
 * `POST /pools` as JSON, or as spec 113's YAML (`content-type: application/yaml`) with the config
 * in its `map:` block. Anything invalid refuses the whole pool, naming every bad field.
 */
export function parsePoolSubmission(body: string | undefined, contentType: string | undefined): PoolSubmission {
  const yaml = isYaml(contentType);
  let document: unknown;
  try {
    document = body === undefined || body === '' ? {} : yaml ? parseYaml(body, YAML_AS_JSON) : JSON.parse(body);
  } catch (error) {
    throw new InvalidPoolConfigError(
      yaml
        ? `The body is not valid YAML (${clipText(String((error as Error).message).split('\n')[0] ?? '')}). Send spec 113's workflow file with poolId, items and map.`
        : 'The body is not valid JSON. Send a JSON object with Content-Type: application/json, or YAML with Content-Type: application/yaml.',
    );
  }
  const repeated = yaml || body === undefined ? undefined : duplicateJsonKey(body);
  if (repeated !== undefined) throw new InvalidPoolConfigError(duplicateKeyMessage(repeated));
  const parsed = yaml ? createPoolYaml.safeParse(document) : createPoolBody.safeParse(document);
  if (!parsed.success) {
    const { details, sentence } = boundedFieldProblems(parsed.error.issues, unknownConfigKey);
    throw new InvalidPoolConfigError(`The pool is refused: ${sentence}. Fix these fields and resend.`, details);
  }
  const data = parsed.data as { poolId?: string; items: PoolSubmission['items']; config?: Record<string, unknown>; map?: Record<string, unknown> };
  return {
    ...(data.poolId !== undefined ? { poolId: data.poolId } : {}),
    items: data.items,
    config: withoutIgnoredKeys(yaml ? data.map : data.config),
  };
}
