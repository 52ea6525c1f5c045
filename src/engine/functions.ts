// Named functions the `functions` node calls (RuleGo's action.Functions): registered in code, each
// given the message and the node's context and answering with the node's outputs (the relation it
// ends on). A few built-ins come registered; a later layer adds its own with `register`.
import { AppError } from '../core/errors.ts';
import type { NodeContext, NodeOutput, RuleMessage } from './types.ts';

export type RuleFunction = (
  message: RuleMessage,
  context: NodeContext,
) => NodeOutput[] | Promise<NodeOutput[]>;

export interface FunctionDef {
  name: string;
  label?: string;
  description?: string;
  run: RuleFunction;
}

export class FunctionRegistry {
  private readonly functions = new Map<string, FunctionDef>();

  /** Adds or replaces a function; a replaced one keeps its place in the list, as in RuleGo. */
  register(name: string, run: RuleFunction, label?: string, description?: string): this {
    if (name.trim() === '') throw new AppError('invalid', 'a function needs a name');
    return this.registerDef({
      name,
      run,
      ...(label === undefined ? {} : { label }),
      ...(description === undefined ? {} : { description }),
    });
  }

  registerDef(def: FunctionDef): this {
    this.functions.set(def.name, def);
    return this;
  }

  unregister(name: string): boolean {
    return this.functions.delete(name);
  }

  get(name: string): RuleFunction | undefined {
    return this.functions.get(name)?.run;
  }

  list(): Array<Omit<FunctionDef, 'run'>> {
    return [...this.functions.values()].map(({ run: _run, ...rest }) => rest);
  }

  names(): string[] {
    return [...this.functions.keys()];
  }
}

const success = (message: RuleMessage, data: string): NodeOutput[] => [
  { relation: 'Success', message: { ...message, data } },
];

/** The registry with the built-in functions; `services.functions` replaces it for an engine. */
export function createFunctionRegistry(): FunctionRegistry {
  return new FunctionRegistry()
    .register(
      'toUpper',
      (message) => success(message, message.data.toUpperCase()),
      'Upper case',
      'The data in upper case.',
    )
    .register(
      'toLower',
      (message) => success(message, message.data.toLowerCase()),
      'Lower case',
      'The data in lower case.',
    )
    .register(
      'trim',
      (message) => success(message, message.data.trim()),
      'Trim',
      'The data without leading and trailing white space.',
    )
    .register(
      'base64Encode',
      (message) => success(message, Buffer.from(message.data, 'utf8').toString('base64')),
      'Base64 encode',
      'The data as base64 text.',
    )
    .register(
      'base64Decode',
      (message) => success(message, Buffer.from(message.data, 'base64').toString('utf8')),
      'Base64 decode',
      'The data decoded from base64 text.',
    )
    .register(
      'metadataToData',
      (message) => [
        {
          relation: 'Success',
          message: { ...message, dataType: 'JSON', data: JSON.stringify(message.metadata) },
        },
      ],
      'Metadata to data',
      'The data becomes the metadata as a JSON object.',
    );
}

/** The process-wide registry used when an engine's services name none (RuleGo's global Functions). */
export const ruleFunctions = createFunctionRegistry();
