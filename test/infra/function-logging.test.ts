import { beforeAll, describe, expect, it } from 'vitest';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourceOf } from './support/template-queries.js';

/** Every Vigil function of every stack (the worker URL's too), with the template that holds it. */
function everyFunction(vigil: SynthesizedVigil): Array<[string, VigilFunction, ReturnType<SynthesizedVigil['template']>]> {
  const regional = vigil.regional.flatMap((stack) =>
    Object.entries({ ...stack.functions, ...(stack.workerUrl ? { WorkerUrlApi: stack.workerUrl.fn } : {}) }).map(
      ([name, fn]) => [`${stack.stackName}/${name}`, fn, vigil.template(stack)] as [string, VigilFunction, ReturnType<SynthesizedVigil['template']>],
    ),
  );
  const gate = Object.entries(vigil.gate.functions).map(
    ([name, fn]) => [`${vigil.gate.stackName}/${name}`, fn, vigil.template(vigil.gate)] as [string, VigilFunction, ReturnType<SynthesizedVigil['template']>],
  );
  return [...regional, ...gate];
}

let quiet: SynthesizedVigil;
let platformRecords: SynthesizedVigil;
beforeAll(() => {
  quiet = synthesizeVigil({ context: { workerFunctionUrl: 'true' } });
  platformRecords = synthesizeVigil({ context: { workerFunctionUrl: 'true', systemLogLevel: 'info' } });
});

describe('function logs (context systemLogLevel)', () => {
  it('by default every function logs JSON, its own lines from INFO up, and of Lambda’s records only warnings: no START and REPORT per invocation', () => {
    const functions = everyFunction(quiet);
    expect(functions.length).toBeGreaterThan(20);
    for (const [name, fn, template] of functions) {
      expect(resourceOf(template, fn.handler).Properties?.['LoggingConfig'], name).toEqual({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
        LogGroup: { Ref: logicalId(fn.logGroup) },
      });
    }
  });

  it('-c systemLogLevel=INFO brings Lambda’s START and REPORT records back on every function and changes nothing else about its logs', () => {
    for (const [name, fn, template] of everyFunction(platformRecords)) {
      expect(resourceOf(template, fn.handler).Properties?.['LoggingConfig'], name).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'INFO',
      });
    }
  });
});
