// The tabs that edit the agent definition itself: basics, model and prompt.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { t } from '../../i18n/index.ts';
import type { AgentDefinition } from '../../types.ts';
import { FieldError } from '../../ui/dialog.tsx';
import {
  SECRET_MARK,
  agentConfig,
  description,
  providerOf,
  providerTemplates,
  withAgentConfig,
  withDescription,
  withRuleChain,
} from './agent-definition.ts';
import type { ProviderView } from '@server/resources/models/models.schema.ts';

interface TabProps {
  definition: AgentDefinition;
  onChange: (definition: AgentDefinition) => void;
  /** The problem the last save was refused for, at the field it names (see agent-errors.ts). */
  errorOf?: (field: string) => string | undefined;
}

const none = (): undefined => undefined;

export function BasicTab({ definition, isNew, onChange, errorOf = none }: TabProps & { isNew: boolean }) {
  return (
    <div class="form-grid">
      <label class="field">
        <span class="field-label">ID</span>
        <input
          class="input"
          aria-label="ID"
          value={definition.ruleChain.id}
          disabled={!isNew}
          pattern="[A-Za-z0-9_\-]{1,64}"
          onInput={(event) => onChange(withRuleChain(definition, { id: event.currentTarget.value }))}
        />
        <FieldError error={errorOf('id')} />
        <span class="field-help">{t('def.id.help')}</span>
      </label>
      <label class="field">
        <span class="field-label">{t('def.name')}</span>
        <input
          class="input"
          value={typeof definition.ruleChain.name === 'string' ? definition.ruleChain.name : ''}
          onInput={(event) => onChange(withRuleChain(definition, { name: event.currentTarget.value }))}
        />
        <FieldError error={errorOf('name')} />
      </label>
      <label class="field field-wide">
        <span class="field-label">{t('def.description')}</span>
        <textarea
          class="input"
          rows={3}
          value={description(definition)}
          onInput={(event) => onChange(withDescription(definition, event.currentTarget.value))}
        />
        <FieldError error={errorOf('description')} />
      </label>
    </div>
  );
}

type Provider = ProviderView;

function numberOrUndefined(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

export function ModelTab({ definition, onChange, errorOf = none }: TabProps) {
  const [providers, setProviders] = useState<Provider[]>([]);
  useEffect(() => {
    api<Provider[]>('/config/models/providers').then(setProviders, () => undefined);
  }, []);
  const config = agentConfig(definition) ?? {};
  const providerId = providerOf(config);
  // The server shows a key stored on the agent as SECRET_MARK and keeps it when the mark comes back.
  const [keyStored] = useState(config.key === SECRET_MARK);
  const ownKey = keyStored || (config.key !== undefined && config.key !== '' && !config.key.startsWith('${'));
  const provider = providers.find((entry) => entry.id === providerId);
  const params = config.params ?? {};
  const setParam = (name: string, value: unknown) => {
    const next = { ...params };
    if (value === undefined) delete next[name];
    else next[name] = value;
    onChange(withAgentConfig(definition, { params: next }));
  };
  const modelNames = provider
    ? [provider.model, ...(provider.models ?? []).map((model) => model.alias ?? model.name)]
    : [];

  return (
    <div class="form-grid">
      <label class="field">
        <span class="field-label">{t('def.provider')}</span>
        <select
          class="input"
          aria-label={t('def.provider')}
          value={providerId}
          onChange={(event) => {
            const id = event.currentTarget.value;
            if (id !== 'custom') onChange(withAgentConfig(definition, providerTemplates(id)));
          }}
        >
          <option value="">{t('def.defaultProvider')}</option>
          {providers.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.name ?? entry.id}
            </option>
          ))}
          {providerId === 'custom' && (
            <option value="custom">{t('def.customUrl', { url: config.url ?? '' })}</option>
          )}
        </select>
        <span class="field-help">
          {providers.length === 0 ? t('def.noProvider') : t('def.providersInSettings')}
        </span>
      </label>
      {(providerId === 'custom' || ownKey) && (
        <label class="field">
          <span class="field-label">{t('def.apiKey')}</span>
          <input
            class="input"
            type="password"
            aria-label={t('def.apiKey')}
            autocomplete="off"
            placeholder={keyStored ? t('def.keySetPlaceholder') : t('def.none')}
            value={config.key === SECRET_MARK ? '' : (config.key ?? '')}
            onInput={(event) => {
              const text = event.currentTarget.value;
              onChange(withAgentConfig(definition, { key: text === '' && keyStored ? SECRET_MARK : text }));
            }}
          />
          <FieldError error={errorOf('key')} />
          <span class="field-help">{keyStored ? t('def.keyStored') : t('def.keyBearer')}</span>
        </label>
      )}
      <label class="field">
        <span class="field-label">{t('def.model')}</span>
        <input
          class="input"
          list="model-names"
          placeholder={
            provider?.model
              ? t('def.providerDefaultModel', { model: provider.model })
              : t('def.providersDefault')
          }
          value={config.model ?? ''}
          onInput={(event) => onChange(withAgentConfig(definition, { model: event.currentTarget.value }))}
        />
        <FieldError error={errorOf('model')} />
        <datalist id="model-names">
          {modelNames.filter(Boolean).map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
      <label class="field">
        <span class="field-label">{t('def.temperature')}</span>
        <input
          class="input"
          type="number"
          min={0}
          max={2}
          step={0.1}
          placeholder={t('def.providerDefault')}
          value={typeof params['temperature'] === 'number' ? String(params['temperature']) : ''}
          onInput={(event) => setParam('temperature', numberOrUndefined(event.currentTarget.value))}
        />
        <FieldError error={errorOf('params.temperature')} />
      </label>
      <label class="field">
        <span class="field-label">{t('def.maxTokens')}</span>
        <input
          class="input"
          type="number"
          min={1}
          placeholder={t('def.providerDefault')}
          value={typeof params['maxTokens'] === 'number' ? String(params['maxTokens']) : ''}
          onInput={(event) => setParam('maxTokens', numberOrUndefined(event.currentTarget.value))}
        />
        <FieldError error={errorOf('params.maxTokens')} />
      </label>
      <label class="field">
        <span class="field-label">{t('def.maxSteps')}</span>
        <input
          class="input"
          type="number"
          min={1}
          max={500}
          aria-label={t('def.maxSteps')}
          value={String(config.maxStep ?? 50)}
          onInput={(event) =>
            onChange(
              withAgentConfig(definition, { maxStep: numberOrUndefined(event.currentTarget.value) ?? 50 }),
            )
          }
        />
        <FieldError error={errorOf('maxStep')} />
        <span class="field-help">{t('def.maxStepsHelp')}</span>
      </label>
      <label class="field">
        <span class="field-label">{t('def.maxToolOutput')}</span>
        <input
          class="input"
          type="number"
          min={100}
          value={String(config.maxToolOutputLength ?? 50000)}
          onInput={(event) =>
            onChange(
              withAgentConfig(definition, {
                maxToolOutputLength: numberOrUndefined(event.currentTarget.value) ?? 50000,
              }),
            )
          }
        />
        <FieldError error={errorOf('maxToolOutputLength')} />
      </label>
    </div>
  );
}

export function PromptTab({ definition, onChange, errorOf = none }: TabProps) {
  const config = agentConfig(definition) ?? {};
  return (
    <label class="field">
      <span class="field-label">{t('def.systemPrompt')}</span>
      <textarea
        class="input code-input"
        rows={16}
        aria-label={t('def.systemPrompt')}
        value={config.systemPrompt ?? ''}
        onInput={(event) =>
          onChange(withAgentConfig(definition, { systemPrompt: event.currentTarget.value }))
        }
      />
      <FieldError error={errorOf('systemPrompt')} />
      <span class="field-help">
        {t('def.templates')} {'${ruleChain.id}'}, {'${now()}'}, {'${include(path)}'} {t('def.workspaceFile')},{' '}
        {'${global.*}'}, {'${vars.*}'}.
      </span>
    </label>
  );
}
