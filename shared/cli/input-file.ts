import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { UsageError } from './exit-codes.js';

export interface InputFile {
  text: string;
  isYaml: boolean;
  /** The document as data (YAML is a superset of JSON). */
  data: unknown;
}

/** Reads a JSON or YAML file named on the command line; unreadable or malformed input is a UsageError. */
export function readInputFile(path: string): InputFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as Error).message}. Pass the path of a JSON or YAML file.`);
  }
  const isYaml = /\.ya?ml$/i.test(path) || !/^\s*[{[]/.test(text);
  try {
    return { text, isYaml, data: isYaml ? parse(text) : JSON.parse(text) };
  } catch (error) {
    throw new UsageError(`${path} is not valid ${isYaml ? 'YAML' : 'JSON'}: ${(error as Error).message}`);
  }
}
