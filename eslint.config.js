import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of src/, lowest first. A folder may import from folders of its own or a lower layer,
// never from a higher one: data flows one way (see README, Layout).
const LAYERS = [
  ['core'],
  ['config', 'model-providers', 'skills', 'cluster', 'observability'],
  ['auth', 'storage'],
  ['http', 'tools', 'usage'],
  ['engine'],
  ['chains'],
  ['turns'],
  ['chat', 'channels', 'scheduler', 'mcp', 'a2a'],
  ['resources'],
  ['cli'],
];
// The composition root sits above every layer; nothing in a layer imports it. Test fakes and
// builders live in test/fakes, outside src: no product file imports from test/ (see the rule below).
const TOP = ['app', 'server', 'services', 'service-types', 'main'];
const TEST_IMPORT = { group: ['**/test/**'], message: 'src/ is the product: fakes live in test/fakes.' };

function layerRules() {
  const all = LAYERS.flat();
  return LAYERS.flatMap((layer, index) => {
    const above = [...LAYERS.slice(index + 1).flat(), ...TOP];
    return layer.map((folder) => ({
      files: [`src/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...above.map((higher) => ({
                group: all.includes(higher) ? [`../**/${higher}/**`] : [`../**/${higher}.ts`],
                message: `src/${folder} is below src/${higher}: imports run from higher layers to lower ones only.`,
              })),
              TEST_IMPORT,
            ],
          },
        ],
      },
    }));
  });
}

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'data', 'web/dist', 'coverage', '.tmp', '*-tmp.ts'] },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // The web UI (web/tsconfig.json): its .tsx files get the same type-aware rules as the .ts ones.
  {
    files: ['web/src/**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // The web UI reads the server's answer types (@server/* is src/, see web/tsconfig.json), never its
  // code: type-only imports are erased at build, so no server module reaches the bundle.
  {
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@server/*'],
              allowTypeImports: true,
              message: "web/ takes only the server's types: `import type`.",
            },
            { regex: '^(\\.\\./)+src/', message: "Import the server's types as @server/* (web/tsconfig.json)." },
          ],
        },
      ],
    },
  },
  ...layerRules(),
  // src/ is the product: nothing in it reaches into the tests' fakes.
  {
    files: ['src/**/*.ts'],
    ignores: LAYERS.flat().map((folder) => `src/${folder}/**/*.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [TEST_IMPORT] },
      ],
    },
  },
);
