// ai/agent: an LLM agent with tools. The input message's data is the user's message; the output
// (Success) is the agent's final answer as TEXT. History and request overrides come from the turn
// (see ai/conversation.ts); without them the node runs stateless.
import { z } from 'zod';
import type { ModelRegistry } from '../../model-providers/registry.ts';
import type { ChatMessage } from '../../model-providers/types.ts';
import { resolveInWorkspace } from '../../tools/workspace-path.ts';
import { runAgentLoop } from '../ai/agent-loop.ts';
import { AgentToolSet, toolEntrySchema } from '../ai/agent-tools.ts';
import { agentIdOf, type ContextRequest } from '../ai/conversation.ts';
import { compactionSchema, contextWindowOf } from '../../config/compaction.ts';
import { resolveModel } from '../ai/model-target.ts';
import { FolderListing, SkillListing, renderSystemPrompt } from '../ai/system-prompt.ts';
import { skillFolders } from '../../tools/skill.ts';
import type { RuleChainDefinition } from '../dsl.ts';
import { Template } from '../template.ts';
import {
  callParams,
  conversationOf,
  jsonSchemaParam,
  replyFormat,
  replyMessage,
  responseFormatSchema,
} from './ai-io.ts';
import type { NodeDefinition } from '../types.ts';
import { nodeEnv, referencedOutputs } from './node-env.ts';
import { compilePresets, presetMessagesSchema, renderPresets } from './preset-messages.ts';
import { defineNode } from './define-node.ts';
import { optionalText } from './config-fields.ts';

export const modelParamsSchema = z
  .object({
    temperature: z
      .number()
      .min(0)
      .max(2)
      .optional()
      .meta({ label: 'Temperature', description: 'Sampling temperature, 0 to 2; empty: the model default.' }),
    topP: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .meta({ label: 'Top P', description: 'Nucleus sampling, 0 to 1; empty: the model default.' }),
    maxTokens: z
      .int()
      .positive()
      .optional()
      .meta({ label: 'Max tokens', description: 'Tokens of the reply at most; empty: the model default.' }),
    stop: z
      .array(z.string())
      .max(4)
      .optional()
      .meta({ label: 'Stop sequences', description: 'Up to 4 texts that end the reply.' }),
    responseFormat: responseFormatSchema,
    jsonSchema: jsonSchemaParam,
    keepThink: z.boolean().optional().meta({
      label: 'Keep thinking',
      description: 'Text format: keep a <think>...</think> block in the reply (removed by default).',
    }),
  })
  .default({});

/** The model fields both model nodes (ai/agent, ai/llm) offer, with the same form text. */
export const modelField = optionalText('Model', "Empty: the provider's default model.");
export const modelParamsField = modelParamsSchema.meta({
  label: 'Model parameters',
  description:
    'temperature, topP, maxTokens, stop, responseFormat (text, json_object, json_schema with jsonSchema), keepThink.',
});

const configSchema = z.object({
  url: optionalText(
    'Provider URL',
    'Empty: the default provider. Usually ${global.models.providers.<id>.base_url}.',
  ),
  key: optionalText('API key', 'Usually ${global.models.providers.<id>.api_key}.'),
  model: modelField,
  systemPrompt: optionalText(
    'System prompt',
    'Templated: ${ruleChain.id}, ${now()}, ${include(path)}, ${global.*}, ${vars.*}.',
  ),
  maxStep: z
    .int()
    .min(1)
    .max(500)
    .default(50)
    .meta({ label: 'Max steps', description: 'Model calls per turn at most.' }),
  maxToolOutputLength: z
    .int()
    .min(100)
    .max(10_000_000)
    .default(50_000)
    .meta({ label: 'Max tool output', description: 'Characters of one tool result given to the model.' }),
  params: modelParamsField,
  tools: z
    .array(toolEntrySchema)
    .max(100)
    .default([])
    .meta({ label: 'Tools', description: 'builtin, rulechain, agent (sub-agent) and mcp tools.' }),
  messages: presetMessagesSchema,
  compaction: compactionSchema.optional().meta({
    label: 'Compaction',
    description:
      "This agent's compaction settings over agents.defaults.compaction: enabled, trigger_percent, keep_recent_tokens, model, memory_flush.",
  }),
});

export type AiAgentConfig = z.infer<typeof configSchema>;

export interface AiNodeDeps {
  /** The registry, or (observed) a view of it whose providers are measured and traced. */
  models: Pick<ModelRegistry, 'get' | 'resolve'>;
  /** The configuration tree behind ${global.*}. */
  globals: () => Record<string, unknown>;
  /** The agent's workspace folder (created when missing), as a real path. */
  workspace: (agentId: string) => Promise<string>;
  /** Folder of the global skills; without it an agent sees only its own. */
  globalSkillsDir?: string;
  chainDefinition: (id: string) => RuleChainDefinition | undefined;
}

/** Tool results kept in session history are capped harder than what the model sees in the turn. */
const HISTORY_TOOL_RESULT_CAP = 4000;

function forHistory(message: ChatMessage): ChatMessage {
  if (message.role !== 'tool' || message.content.length <= HISTORY_TOOL_RESULT_CAP) return message;
  return {
    ...message,
    content: `${message.content.slice(0, HISTORY_TOOL_RESULT_CAP)}\n[... truncated in history]`,
  };
}

/** Tokens kept free for the answer: its max_tokens when set, else an eighth of the window (at most 4,096). */
function answerReserve(maxTokens: number | undefined, window: number): number {
  return Math.min(maxTokens ?? 4096, Math.floor(window / 8));
}

type ModelsConfig = Parameters<typeof contextWindowOf>[0];

/** The `models` section of the configuration behind ${global.*}. */
function modelsConfig(globals: Record<string, unknown>): ModelsConfig {
  const models = globals['models'] as Partial<ModelsConfig> | undefined;
  return { providers: models?.providers ?? {} };
}

export function createAiAgentNode(deps: AiNodeDeps): NodeDefinition<AiAgentConfig> {
  return defineNode(configSchema, {
    type: 'ai/agent',
    label: 'AI agent',
    description: 'An LLM agent that calls tools until it can answer; its answer is the output data.',
    category: 'ai',
    relations: ['Success', 'Failure'],
    create(config, { chainId, nodeId, vars, references, services }) {
      const prompt = Template.compile(config.systemPrompt);
      const scope = { vars, global: deps.globals };
      const presets = compilePresets(config.messages, `node "${nodeId}"`);
      // Checked at load: a json_schema whose schema is not JSON fails here, not per message.
      replyFormat(config.params);
      const toolSet = new AgentToolSet(config.tools, {
        chainDefinition: deps.chainDefinition,
        globals: deps.globals,
        vars,
      });
      const reportProblem = (problem: string) =>
        services.logger?.warn({ chainId, nodeId }, `agent "${chainId}": ${problem}`);
      const listing = new FolderListing();
      const skillListing = new SkillListing();
      // The skills list tells the model to call the `skill` tool, so only agents that have it get it.
      const hasSkillTool = config.tools.some((tool) => tool.type === 'builtin' && tool.name === 'skill');
      return {
        async process(message, node) {
          const conversation = node.turn.conversation;
          const agentId = agentIdOf(node.turn, chainId);
          const workspaceDir = await deps.workspace(agentId);
          const toolContext = {
            agentId,
            workspaceDir,
            ...(deps.globalSkillsDir ? { globalSkillsDir: deps.globalSkillsDir } : {}),
            ...(conversation?.memory ? { memory: conversation.memory } : {}),
          };
          const { provider, model } = resolveModel(config, deps.models, deps.globals, vars);
          const system = await renderSystemPrompt(prompt, {
            message,
            nodeOutputs: referencedOutputs(scope, node, references),
            chainId,
            workspaceDir,
            vars,
            globals: deps.globals,
            listing,
            resolvePath: (path) => resolveInWorkspace(workspaceDir, path, { mustExist: true }),
            ...(hasSkillTool ? { skills: () => skillListing.get(skillFolders(toolContext)) } : {}),
          });
          const images = conversation?.images;
          const input: ChatMessage = {
            role: 'user',
            content: message.data,
            ...(images && images.length > 0 ? { images } : {}),
          };
          // As rulego-components-ai: `{"messages": [...]}` data is the conversation itself; else the
          // preset messages, rendered; else the data as the user's message. The system prompt goes
          // first unless those messages bring their own.
          const given = conversationOf(message);
          const preset = () => renderPresets(presets, nodeEnv(message, scope, node, references, true));
          // A turn that continues after client tool calls takes their results in place of a user message.
          const inputs: ChatMessage[] =
            given ?? conversation?.resume ?? (presets.length > 0 ? preset() : [input]);
          const ownSystem = inputs.some((entry) => entry.role === 'system');
          const { format, wire } = callParams(config.params, conversation?.params);
          const tools = await toolSet.tools(reportProblem);
          const systemMessages: ChatMessage[] =
            system && !ownSystem ? [{ role: 'system', content: system }] : [];
          const window = contextWindowOf(modelsConfig(deps.globals()), provider.id, model);
          const context: ContextRequest = {
            system: systemMessages,
            inputs,
            tools: tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
            provider,
            model,
            window,
            reserve: answerReserve(wire.maxTokens, window),
            compaction: config.compaction,
            signal: node.signal,
          };
          const control = conversation?.context;
          const history = control ? await control.prepare(context) : (conversation?.history ?? []);
          const overflow = control
            ? async () => {
                const compacted = await control.overflow(context);
                return compacted && [...systemMessages, ...compacted, ...inputs];
              }
            : undefined;
          const result = await runAgentLoop({
            provider,
            model,
            messages: [...systemMessages, ...history, ...inputs],
            ...(control ? { budget: window - context.reserve } : {}),
            ...(overflow ? { onOverflow: overflow } : {}),
            tools,
            params: wire,
            maxStep: config.maxStep,
            maxToolOutputLength: config.maxToolOutputLength,
            node,
            toolContext,
          });
          if (conversation)
            node.emit({ type: 'conversation', messages: [...inputs, ...result.added.map(forHistory)] });
          return [{ relation: 'Success', message: replyMessage(message, result.text, format) }];
        },
        destroy: () => toolSet.close(),
        start: () => void toolSet.probe(reportProblem),
        problems: () => toolSet.problems(),
      };
    },
  });
}
