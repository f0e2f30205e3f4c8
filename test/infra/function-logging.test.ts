import { beforeAll, describe, expect, it } from 'vitest';
import { functionsOf, synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourceOf } from './support/template-queries.js';

/** Every Vigil function of every stack, named, with the template that holds it. */
const everyFunction = (vigil: SynthesizedVigil) =>
  [...vigil.regional, vigil.gate].flatMap((stack) =>
    Object.entries(functionsOf(stack)).map(([name, fn]) => ({ name: `${stack.stackName}/${name}`, fn, template: vigil.template(stack) })),
  );

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
    for (const { name, fn, template } of functions) {
      expect(resourceOf(template, fn.handler).Properties?.['LoggingConfig'], name).toEqual({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
        LogGroup: { Ref: logicalId(fn.logGroup) },
      });
    }
  });

  it('-c systemLogLevel=INFO brings Lambda’s START and REPORT records back on every function and changes nothing else about its logs', () => {
    for (const { name, fn, template } of everyFunction(platformRecords)) {
      expect(resourceOf(template, fn.handler).Properties?.['LoggingConfig'], name).toMatchObject({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'INFO',
      });
    }
  });
});
