// A Responses API request as an agent turn: the response's echo of the request (its "shell"), the
// model parameters, the client's function tools, and the owner its stored copy belongs to.
import type { Principal } from '../../auth/auth-service.ts';
import type { ModelParams, ToolSpec } from '../../model-providers/types.ts';
import type { ResponseShell } from './response-builder.ts';
import type { CreateResponse, FunctionTool } from './responses.schema.ts';

/** Stored responses are an api account's own; users (and callers while auth is off) share theirs. */
export function ownerOf(principal: Principal | undefined): string {
  return principal?.kind === 'account' ? `account:${principal.accountId}` : 'users';
}

export function conversationId(body: CreateResponse): string | undefined {
  const conversation = body.conversation;
  if (conversation == null) return undefined;
  return typeof conversation === 'string' ? conversation : conversation.id;
}

function functionTools(body: CreateResponse): FunctionTool[] {
  return (body.tools ?? []) as FunctionTool[];
}

export function clientTools(body: CreateResponse): ToolSpec[] {
  return functionTools(body).map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }));
}

/** The request's model parameters, as the chat endpoint passes them to the provider. */
export function responseParams(body: CreateResponse): ModelParams {
  const params: ModelParams = {};
  if (body.temperature != null) params.temperature = body.temperature;
  if (body.top_p != null) params.topP = body.top_p;
  if (body.max_output_tokens != null) params.maxTokens = body.max_output_tokens;
  if (body.user != null) params.user = body.user;
  const format = body.text?.format;
  if (format?.type === 'json_object') params.responseFormat = { type: 'json_object' };
  if (format?.type === 'json_schema')
    params.responseFormat = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description != null ? { description: format.description } : {}),
        ...(format.strict != null ? { strict: format.strict } : {}),
      },
    };
  const choice = body.tool_choice;
  if (choice != null)
    params.toolChoice =
      typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  if (body.parallel_tool_calls != null) params.parallelToolCalls = body.parallel_tool_calls;
  return params;
}

/** Everything a Response echoes of its request, with the defaults OpenAI reports. */
export function responseShell(body: CreateResponse, id: string, createdAt: number): ResponseShell {
  const conversation = conversationId(body);
  return {
    id,
    object: 'response',
    created_at: Math.floor(createdAt / 1000),
    model: body.model,
    background: body.background ?? false,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    ...(conversation !== undefined ? { conversation: { id: conversation } } : {}),
    reasoning: null,
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: functionTools(body).map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? null,
      parameters: tool.parameters ?? null,
      strict: tool.strict ?? true,
    })),
    truncation: body.truncation ?? 'disabled',
    safety_identifier: null,
    prompt_cache_key: null,
    ...(body.user != null ? { user: body.user } : {}),
  };
}
