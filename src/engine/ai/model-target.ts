// Which provider and model a node calls: its own url/key/model (usually
// ${global.models.providers.<id>.*} templates), or the default provider when they are empty.
import type { ModelRegistry } from '../../model-providers/registry.ts';
import type { ModelProvider } from '../../model-providers/types.ts';
import { pathResolver, renderTemplate } from '../template.ts';

export interface ModelTarget {
  url: string;
  key: string;
  model: string;
}

export function resolveModel(
  target: ModelTarget,
  models: Pick<ModelRegistry, 'get' | 'resolve'>,
  globals: () => Record<string, unknown>,
  vars: Record<string, string>,
): { provider: ModelProvider; model: string } {
  const resolve = pathResolver({ global: globals, vars });
  const render = (text: string) => (text.includes('${') ? renderTemplate(text, resolve) : text);
  const url = render(target.url);
  const provider = url
    ? models.resolve({ url, key: render(target.key), model: render(target.model) })
    : models.get();
  return { provider, model: render(target.model) };
}
