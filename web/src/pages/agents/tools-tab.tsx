// The agent's tools: built-in ones (switched on and off), rule chains, sub-agents and MCP servers.
import { useEffect, useState } from 'preact/hooks';
import { api, apiAll } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { AgentDefinition, AgentView } from '../../types.ts';
import { agentName } from '../../types.ts';
import { FormError } from '../../ui/dialog.tsx';
import { Icon, IconButton } from '../../ui/icons.tsx';
import type { ToolEntry } from './agent-definition.ts';
import { agentConfig, withAgentConfig } from './agent-definition.ts';
import type { ToolListing } from '@server/resources/tools/tools.schema.ts';

type ToolInfo = ToolListing;

interface Props {
  definition: AgentDefinition;
  onChange: (definition: AgentDefinition) => void;
  /** The saved agent's current problems (status.problems), shown at the MCP server they name. */
  problems?: string[] | undefined;
  /** Why the last save was refused, when the server named the tools. */
  error?: string | undefined;
}

/** The problem of the MCP tool named `name`, without the node prefix the server adds. */
function mcpProblem(problems: string[], name: string | undefined): string | undefined {
  const found = problems.find((problem) => problem.includes(`MCP tool "${name ?? ''}" `));
  return found?.replace(/^node "[^"]*": /, '');
}

const KIND_LABEL = { rulechain: 'tools.kind.rulechain', agent: 'tools.kind.agent' } as const;

export function ToolsTab({ definition, onChange, problems = [], error }: Props) {
  const [builtins, setBuiltins] = useState<ToolInfo[]>([]);
  const [chains, setChains] = useState<AgentView[]>([]);
  const [agents, setAgents] = useState<AgentView[]>([]);
  useEffect(() => {
    api<ToolInfo[]>('/tools').then(
      (tools) => setBuiltins(tools.filter((tool) => tool.type === 'builtin')),
      () => undefined,
    );
    apiAll<AgentView>('/rules').then(
      (list) => setChains(list.filter((chain) => chain.ruleChain.additionalInfo?.['category'] !== 'agents')),
      () => undefined,
    );
    apiAll<AgentView>('/agents').then(setAgents, () => undefined);
  }, []);

  const tools = agentConfig(definition)?.tools ?? [];
  const setTools = (next: ToolEntry[]) => onChange(withAgentConfig(definition, { tools: next }));
  const builtinOn = (name: string) => tools.some((tool) => tool.type === 'builtin' && tool.name === name);
  const toggleBuiltin = (name: string, on: boolean) =>
    setTools(
      on
        ? [...tools, { type: 'builtin', name }]
        : tools.filter((tool) => !(tool.type === 'builtin' && tool.name === name)),
    );
  const update = (index: number, change: Partial<ToolEntry>) =>
    setTools(tools.map((tool, at) => (at === index ? { ...tool, ...change } : tool)));
  const removeAt = (index: number) => setTools(tools.filter((_, at) => at !== index));
  const selfId = definition.ruleChain.id;

  const targetRows = (type: 'rulechain' | 'agent') => {
    const options = type === 'rulechain' ? chains : agents.filter((agent) => agent.ruleChain.id !== selfId);
    return (
      <fieldset class="fieldset">
        <legend>{type === 'rulechain' ? t('tools.chainsAsTools') : t('tools.agentsAsTools')}</legend>
        {tools.map((tool, index) =>
          tool.type !== type ? null : (
            <div class="tool-row" key={index}>
              <select
                class="input"
                aria-label={t(KIND_LABEL[type], { n: index + 1 })}
                value={tool.targetId ?? ''}
                onChange={(event) => update(index, { targetId: event.currentTarget.value })}
              >
                <option value="">{t('tools.choose')}</option>
                {options.map((option) => (
                  <option key={option.ruleChain.id} value={option.ruleChain.id}>
                    {agentName(option)} ({option.ruleChain.id})
                  </option>
                ))}
                {tool.targetId && !options.some((option) => option.ruleChain.id === tool.targetId) && (
                  <option value={tool.targetId}>{tool.targetId} (missing)</option>
                )}
              </select>
              <input
                class="input"
                placeholder={t('tools.toolNamePlaceholder')}
                aria-label={t('tools.toolName')}
                value={tool.name ?? ''}
                onInput={(event) => update(index, { name: event.currentTarget.value })}
              />
              <IconButton icon="trash" label={t('tools.removeTool')} onClick={() => removeAt(index)} />
            </div>
          ),
        )}
        <button
          type="button"
          class="btn btn-ghost"
          onClick={() => setTools([...tools, { type, targetId: '' }])}
        >
          <Icon name="plus" /> {type === 'rulechain' ? t('tools.addChain') : t('tools.addAgent')}
        </button>
      </fieldset>
    );
  };

  const mcpServer = (tool: ToolEntry) => {
    const server = tool.config?.['server'];
    return Array.isArray(server) ? server.join(' ') : typeof server === 'string' ? server : '';
  };

  return (
    <div class="stack">
      <FormError error={error} />
      <fieldset class="fieldset">
        <legend>{t('tools.builtin')}</legend>
        <div class="check-grid">
          {builtins.map((tool) => (
            <label class="check" key={tool.name} title={tool.description}>
              <input
                type="checkbox"
                checked={builtinOn(tool.name)}
                onChange={(event) => toggleBuiltin(tool.name, event.currentTarget.checked)}
              />
              <span>
                <strong>{tool.name}</strong>
                <span class="muted check-help">{tool.description}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {targetRows('rulechain')}
      {targetRows('agent')}
      <fieldset class="fieldset">
        <legend>{t('tools.mcp')}</legend>
        {tools.map((tool, index) =>
          tool.type !== 'mcp' ? null : (
            <div class="tool-row" key={index}>
              <input
                class="input"
                placeholder={t('tools.namePlaceholder')}
                aria-label={t('tools.mcpName')}
                value={tool.name ?? ''}
                onInput={(event) => update(index, { name: event.currentTarget.value })}
              />
              <input
                class="input"
                placeholder={t('tools.mcpUrlPlaceholder')}
                aria-label={t('tools.mcpUrl')}
                value={mcpServer(tool)}
                onInput={(event) =>
                  update(index, { config: { ...tool.config, server: event.currentTarget.value } })
                }
              />
              <IconButton icon="trash" label={t('tools.removeMcp')} onClick={() => removeAt(index)} />
              {mcpProblem(problems, tool.name) && (
                <p class="note note-error tool-problem" role="alert">
                  {mcpProblem(problems, tool.name)}
                </p>
              )}
            </div>
          ),
        )}
        <button
          type="button"
          class="btn btn-ghost"
          onClick={() => setTools([...tools, { type: 'mcp', name: '', config: { server: '' } }])}
        >
          <Icon name="plus" /> {t('tools.addMcp')}
        </button>
      </fieldset>
      <fieldset class="fieldset">
        <legend>{t('tools.a2a')}</legend>
        {tools.map((tool, index) =>
          tool.type !== 'a2a' ? null : (
            <div class="tool-row" key={index}>
              <input
                class="input"
                placeholder={t('tools.namePlaceholder')}
                aria-label={t('tools.a2aName')}
                value={tool.name ?? ''}
                onInput={(event) => update(index, { name: event.currentTarget.value })}
              />
              <input
                class="input"
                placeholder={t('tools.a2aUrlPlaceholder')}
                aria-label={t('tools.a2aUrl')}
                value={typeof tool.config?.['url'] === 'string' ? tool.config['url'] : ''}
                onInput={(event) =>
                  update(index, { config: { ...tool.config, url: event.currentTarget.value } })
                }
              />
              <input
                class="input"
                type="password"
                autocomplete="off"
                placeholder={t('tools.a2aKeyPlaceholder')}
                aria-label={t('tools.a2aKey')}
                value={typeof tool.config?.['apiKey'] === 'string' ? tool.config['apiKey'] : ''}
                onInput={(event) => {
                  const { apiKey: _old, ...rest } = tool.config ?? {};
                  const apiKey = event.currentTarget.value;
                  update(index, { config: apiKey ? { ...rest, apiKey } : rest });
                }}
              />
              <IconButton icon="trash" label={t('tools.removeA2a')} onClick={() => removeAt(index)} />
            </div>
          ),
        )}
        <button
          type="button"
          class="btn btn-ghost"
          onClick={() => setTools([...tools, { type: 'a2a', name: '', config: { url: '' } }])}
        >
          <Icon name="plus" /> {t('tools.addA2a')}
        </button>
      </fieldset>
    </div>
  );
}
