// ${NAME} and ${NAME:-default} substitution, applied to the parsed tree (never to raw YAML text),
// so a value can never inject structure into the document.

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export interface SubstitutionProblem {
  path: Array<string | number>;
  variable: string;
}

export function hasReference(value: string): boolean {
  REFERENCE.lastIndex = 0;
  return REFERENCE.test(value);
}

export function substituteString(
  value: string,
  env: Record<string, string | undefined>,
  onMissing: (variable: string) => void,
): string {
  return value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    onMissing(name);
    return '';
  });
}

/** Returns a copy of `tree` with every string substituted; missing variables are collected. */
export function substituteTree(
  tree: unknown,
  env: Record<string, string | undefined>,
  problems: SubstitutionProblem[],
  path: Array<string | number> = [],
): unknown {
  if (typeof tree === 'string') {
    return substituteString(tree, env, (variable) => problems.push({ path, variable }));
  }
  if (Array.isArray(tree)) {
    return tree.map((item, index) => substituteTree(item, env, problems, [...path, index]));
  }
  if (tree !== null && typeof tree === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(tree)) {
      // defineProperty: a key named "__proto__" stays a key instead of replacing the prototype.
      Object.defineProperty(out, key, {
        value: substituteTree(value, env, problems, [...path, key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return tree;
}
