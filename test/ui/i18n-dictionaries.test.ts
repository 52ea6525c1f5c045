// The UI's dictionaries: every English dictionary and its Chinese one have exactly the same keys and
// the same {placeholders} in each text, no key is defined twice across the dictionaries, and every
// text the server sends for a built-in node type (GET /components) has its Chinese translation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeComponents, type ComponentField } from '../../src/engine/components.ts';
import { createDefaultRegistry } from '../../src/engine/registry.ts';
import { createAiAgentNode, type AiNodeDeps } from '../../src/engine/nodes/ai-agent.ts';
import { createAiLlmNode } from '../../src/engine/nodes/ai-llm.ts';
import { en } from '../../web/src/i18n/en.ts';
import { enManage } from '../../web/src/i18n/en-manage.ts';
import { enOps } from '../../web/src/i18n/en-ops.ts';
import { enRules } from '../../web/src/i18n/en-rules.ts';
import { zh } from '../../web/src/i18n/zh.ts';
import { zhManage } from '../../web/src/i18n/zh-manage.ts';
import { zhOps } from '../../web/src/i18n/zh-ops.ts';
import { zhRules } from '../../web/src/i18n/zh-rules.ts';
import { zhNodeFields } from '../../web/src/i18n/zh-node-fields.ts';
import { zhNodeTypes } from '../../web/src/i18n/zh-node-types.ts';

const PAIRS: Array<{ name: string; english: Record<string, string>; chinese: Record<string, string> }> = [
  { name: 'en.ts / zh.ts', english: en, chinese: zh },
  { name: 'en-manage.ts / zh-manage.ts', english: enManage, chinese: zhManage },
  { name: 'en-ops.ts / zh-ops.ts', english: enOps, chinese: zhOps },
  { name: 'en-rules.ts / zh-rules.ts', english: enRules, chinese: zhRules },
];

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

/** Every text of the built-in node types, as the server words it. */
function builtInNodeTexts(): Set<string> {
  const registry = createDefaultRegistry();
  const deps = {} as AiNodeDeps; // describing a type never calls its dependencies
  registry.register(createAiAgentNode(deps)).register(createAiLlmNode(deps));
  const texts = new Set<string>();
  const add = (text: string) => {
    if (text !== '') texts.add(text);
  };
  const walk = (fields: ComponentField[]) => {
    for (const field of fields) {
      add(field.label);
      add(field.desc);
      walk(field.fields);
    }
  };
  for (const type of describeComponents(registry)) {
    add(type.category);
    add(type.label);
    add(type.desc);
    walk(type.fields);
  }
  return texts;
}

describe('web UI dictionaries', () => {
  for (const { name, english, chinese } of PAIRS) {
    it(`${name} have exactly the same keys and placeholders`, () => {
      const englishKeys = Object.keys(english).sort();
      const chineseKeys = Object.keys(chinese).sort();
      assert.deepEqual(
        chineseKeys.filter((key) => !(key in english)),
        [],
        'keys only in the Chinese dictionary',
      );
      assert.deepEqual(
        englishKeys.filter((key) => !(key in chinese)),
        [],
        'keys only in the English dictionary',
      );
      for (const key of englishKeys) {
        assert.deepEqual(
          placeholders(chinese[key] ?? ''),
          placeholders(english[key] ?? ''),
          `placeholders of ${key}`,
        );
        assert.notEqual((chinese[key] ?? '').trim(), '', `${key} is empty in Chinese`);
      }
    });
  }

  it('no key is defined in two dictionaries (a later one would hide the other)', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const { name, english } of PAIRS)
      for (const key of Object.keys(english)) {
        const first = seen.get(key);
        if (first) twice.push(`${key} (${first} and ${name})`);
        seen.set(key, name);
      }
    assert.deepEqual(twice, []);
  });

  it("every built-in node type's text from GET /components has a Chinese translation, and no other", () => {
    const texts = builtInNodeTexts();
    const translated = new Set([...Object.keys(zhNodeTypes), ...Object.keys(zhNodeFields)]);
    assert.deepEqual(
      [...texts].filter((text) => !translated.has(text)),
      [],
      'texts without a translation',
    );
    assert.deepEqual(
      [...translated].filter((text) => !texts.has(text)),
      [],
      'translations of texts the server no longer sends',
    );
    const both = Object.keys(zhNodeTypes).filter((text) => Object.hasOwn(zhNodeFields, text));
    assert.deepEqual(both, [], 'texts in both tables');
    for (const [english, chinese] of [...Object.entries(zhNodeTypes), ...Object.entries(zhNodeFields)])
      assert.match(chinese, /[\u4e00-\u9fff]|^[\x20-\x7e]+$/, `${english} → ${chinese}`);
  });
});
