// Node types by name. Built-ins come from createDefaultRegistry; later layers (ai/agent, ai/llm)
// add theirs with `register` and the engine needs no other change.
import { AppError } from '../core/errors.ts';
import { breakNode } from './nodes/break.ts';
import { cacheDeleteNode, cacheGetNode, cacheSetNode } from './nodes/cache.ts';
import { commentNode } from './nodes/comment.ts';
import { dbClientNode } from './nodes/db-client.ts';
import { delayNode } from './nodes/delay.ts';
import { execNode, sshNode } from './nodes/exec.ts';
import { mqttClientNode, netNode, sendEmailNode, wsNode } from './nodes/messaging.ts';
import { fetchNodeOutputNode } from './nodes/fetch-node-output.ts';
import { functionsNode } from './nodes/functions.ts';
import { groupFilterNode } from './nodes/group-filter.ts';
import { iteratorNode } from './nodes/iterator.ts';
import { refNode } from './nodes/ref.ts';
import { whileNode } from './nodes/while.ts';
import { endNode } from './nodes/end.ts';
import { exprFilterNode } from './nodes/expr-filter.ts';
import { exprTransformNode } from './nodes/expr-transform.ts';
import { fieldFilterNode } from './nodes/field-filter.ts';
import { flowNode } from './nodes/flow.ts';
import { forNode } from './nodes/for.ts';
import { forkNode } from './nodes/fork.ts';
import { groupActionNode } from './nodes/group-action.ts';
import { joinNode } from './nodes/join.ts';
import { jsFilterNode } from './nodes/js-filter.ts';
import { jsSwitchNode } from './nodes/js-switch.ts';
import { jsTransformNode } from './nodes/js-transform.ts';
import { logNode } from './nodes/log.ts';
import { metadataTransformNode } from './nodes/metadata-transform.ts';
import { msgTypeSwitchNode } from './nodes/msg-type-switch.ts';
import { restApiCallNode } from './nodes/rest-api-call.ts';
import { switchNode } from './nodes/switch.ts';
import { textTemplateNode } from './nodes/text-template.ts';
import type { NodeDefinition } from './types.ts';

export class NodeRegistry {
  private readonly definitions = new Map<string, NodeDefinition>();

  /** Adds a node type; a second type of the same name is a mistake and throws `conflict`. */
  register<Config>(definition: NodeDefinition<Config>): this {
    if (this.definitions.has(definition.type)) {
      throw new AppError('conflict', `node type "${definition.type}" is already registered`);
    }
    // The engine only ever passes a config that `configSchema` produced, so erasing Config is safe.
    this.definitions.set(definition.type, definition as unknown as NodeDefinition);
    return this;
  }

  get(type: string): NodeDefinition | undefined {
    return this.definitions.get(type);
  }

  list(): NodeDefinition[] {
    return [...this.definitions.values()];
  }
}

export function createDefaultRegistry(): NodeRegistry {
  return new NodeRegistry()
    .register(jsFilterNode)
    .register(jsTransformNode)
    .register(jsSwitchNode)
    .register(exprFilterNode)
    .register(switchNode)
    .register(forkNode)
    .register(joinNode)
    .register(flowNode)
    .register(endNode)
    .register(logNode)
    .register(delayNode)
    .register(restApiCallNode)
    .register(forNode)
    .register(exprTransformNode)
    .register(metadataTransformNode)
    .register(msgTypeSwitchNode)
    .register(fieldFilterNode)
    .register(groupActionNode)
    .register(textTemplateNode)
    .register(groupFilterNode)
    .register(refNode)
    .register(fetchNodeOutputNode)
    .register(iteratorNode)
    .register(whileNode)
    .register(breakNode)
    .register(functionsNode)
    .register(commentNode)
    .register(cacheGetNode)
    .register(cacheSetNode)
    .register(cacheDeleteNode)
    .register(dbClientNode)
    .register(execNode)
    .register(sshNode)
    .register(mqttClientNode)
    .register(sendEmailNode)
    .register(netNode)
    .register(wsNode);
}
