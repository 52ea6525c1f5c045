// The loaded agents as OpenAI models, so clients that discover models (models.list(), LibreChat,
// Open WebUI) can pick an agent: the model id is the agent id the chat endpoint takes.
import { notFound } from '../../core/errors.ts';
import type { AgentDirectory } from '../../chains/agent-directory.ts';
import type { ChainView } from '../../chains/chain-catalog.ts';
import type { OpenAIModel } from './openai-models.schema.ts';

export const MODEL_OWNER = 'agent-service';

export class OpenAIModelsService {
  /** Agents carry no creation time; every model reports the time this service started. */
  private readonly created: number;

  constructor(
    private readonly agents: AgentDirectory,
    now = Date.now(),
  ) {
    this.created = Math.floor(now / 1000);
  }

  list(): { object: 'list'; data: OpenAIModel[] } {
    const data = this.agents
      .list()
      .filter((view) => view.status.loaded)
      .map((view) => this.model(view));
    return { object: 'list', data };
  }

  get(modelId: string): OpenAIModel {
    const found = this.list().data.find((model) => model.id === modelId);
    if (!found) throw notFound(`model "${modelId}" does not exist: no loaded agent has that id`);
    return found;
  }

  private model(view: ChainView): OpenAIModel {
    return {
      id: String(view.ruleChain['id']),
      object: 'model',
      created: this.created,
      owned_by: MODEL_OWNER,
    };
  }
}
