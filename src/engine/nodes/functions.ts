import { z } from 'zod';
import { compileExprTemplate } from '../expr-template.ts';
import { FunctionRegistry, ruleFunctions } from '../functions.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { optionalText, requiredText } from './config-fields.ts';

const configSchema = z.object({
  functionName: requiredText(
    'Function',
    'Name of a registered function; ${metadata.key} and ${msg.key} are replaced (and ${key} for metadata).',
  ),
  param: optionalText(
    'Parameter',
    'When set, the data becomes this text (with ${...} replaced) before the call; empty keeps the data.',
  ),
});

export const functionsNode = defineNode(configSchema, {
  type: 'functions',
  label: 'Function',
  description:
    'Calls a function registered in code by name; it decides the relation (Success, True, its own...).',
  category: 'action',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const { nodeId, services } = factory;
    const registry =
      services['functions'] instanceof FunctionRegistry ? services['functions'] : ruleFunctions;
    const name = compileExprTemplate(config.functionName, `node "${nodeId}" functionName`);
    const param =
      config.param === '' ? undefined : compileExprTemplate(config.param, `node "${nodeId}" param`);
    const envOf = nodeEnvOf(factory, true);
    return {
      async process(message, context) {
        const env = () => envOf(message, context);
        const functionName = name.isStatic ? config.functionName : name.render(env());
        const run = registry.get(functionName);
        if (!run) throw new Error(`can not found the function=${functionName}`);
        const input = param ? { ...message, data: param.render(env()) } : message;
        return run(input, context);
      },
    };
  },
});
