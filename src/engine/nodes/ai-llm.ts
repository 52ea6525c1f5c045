// ai/llm: one model call without tools, as rulego-components-ai's: the system prompt, then the
// configured `messages`, whose templates see the message (${msg.x}, ${metadata.x}, ${node1.msg.x});
// without `messages` the input data is the conversation or the user message. The reply is the output.
import { z } from 'zod';
import type { ChatMessage } from '../../model-providers/types.ts';
import { resolveModel } from '../ai/model-target.ts';
import { messageResolver, Template } from '../template.ts';
import type { NodeDefinition } from '../types.ts';
import { modelField, modelParamsField, type AiNodeDeps } from './ai-agent.ts';
import { callParams, conversationOf, replyFormat, replyMessage } from './ai-io.ts';
import { referencedOutputs } from './node-env.ts';
import { presetMessagesSchema } from './preset-messages.ts';
import { defineNode } from './define-node.ts';
import { optionalText } from './config-fields.ts';

const configSchema = z.object({
  url: optionalText('Provider URL', 'Empty: the default provider.'),
  key: optionalText('API key', "Empty: the provider's key. Usually ${global.models.providers.<id>.api_key}."),
  model: modelField,
  systemPrompt: optionalText(
    'System prompt',
    'Templated with ${msg.*}, ${metadata.*}, ${vars.*}, ${global.*}.',
  ),
  messages: presetMessagesSchema.meta({
    label: 'Messages',
    description:
      'Templated prompt messages (role system, user or assistant); empty: {"messages": [...]} data as the conversation, else the input data as the user message.',
  }),
  params: modelParamsField,
});

export function createAiLlmNode(
  deps: Pick<AiNodeDeps, 'models' | 'globals'>,
): NodeDefinition<z.infer<typeof configSchema>> {
  return defineNode(configSchema, {
    type: 'ai/llm',
    label: 'LLM',
    description: 'Calls a language model once and outputs its reply.',
    category: 'ai',
    relations: ['Success', 'Failure'],
    create(config, { vars, references }) {
      const system = Template.compile(config.systemPrompt);
      const scope = { vars, global: deps.globals };
      // Checked at load: a json_schema whose schema is not JSON fails here, not per message.
      replyFormat(config.params);
      const templates = config.messages.map((entry) => ({
        role: entry.role,
        content: Template.compile(entry.content),
      }));
      return {
        async process(message, node) {
          const conversation = node.turn.conversation;
          // As RuleGo's str templates: a placeholder with no value (a node not yet run) stays as written.
          const roots = { global: deps.globals, ...referencedOutputs(scope, node, references) };
          const resolve = messageResolver(message, vars, roots);
          const messages: ChatMessage[] = [];
          const systemText = system.render(resolve);
          if (systemText) messages.push({ role: 'system', content: systemText });
          if (templates.length === 0) {
            messages.push(...(conversationOf(message) ?? [{ role: 'user', content: message.data }]));
          }
          for (const entry of templates)
            messages.push({ role: entry.role, content: entry.content.render(resolve) } as ChatMessage);
          const { provider, model } = resolveModel(config, deps.models, deps.globals, vars);
          const { format, wire } = callParams(config.params, conversation?.params);
          let text = '';
          for await (const event of provider.stream({
            model,
            messages,
            params: wire,
            signal: node.signal,
            caller: node.turn.caller,
          })) {
            if (event.type === 'text-delta') {
              text += event.text;
              node.emit({ type: 'text-delta', text: event.text });
            } else if (event.type === 'usage') node.emit({ type: 'usage', usage: event.usage });
          }
          if (conversation)
            node.emit({
              type: 'conversation',
              messages: [
                { role: 'user', content: message.data },
                { role: 'assistant', content: text },
              ],
            });
          return [{ relation: 'Success', message: replyMessage(message, text, format) }];
        },
      };
    },
  });
}
