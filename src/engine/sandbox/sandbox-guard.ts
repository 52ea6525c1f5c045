// What keeps one script call from leaving anything for the next, as RuleGo's VM pool resets its VMs.
// A fresh QuickJS context per call would cost about 200 µs against a 7 µs call, so a sandbox keeps
// its context and this guard, evaluated in it before the script's source, makes it safe to reuse:
// - every built-in reachable from the global object or by syntax (the generator and iterator
//   prototypes, say) is frozen, so `Array.prototype.x = 1` or `JSON.parse = f` changes nothing;
// - the global bindings (JSON, Array, ...) move to a frozen object behind the global object, which
//   keeps only undefined, NaN and Infinity: what a call adds is then all it holds besides those,
//   found and deleted in well under a microsecond after each call, thrown or not.
// Freezing has one known cost, the "override mistake": assigning `e.name = 'X'` to an object whose
// prototype holds a frozen `name` would fail, so, as SES does, the properties commonly assigned this
// way become accessors that define the property on the object assigned to.
// A global the clean-up cannot remove (defined non-configurable, or a global made non-extensible)
// marks the context stale: the next call throws `stale` before any user code runs, and the sandbox
// runs it in a fresh context instead.

/** Evaluates to `[wrap, stale]`: `wrap(entry)` is the guarded entry, `stale` what it throws then. */
export const GUARD_SOURCE = String.raw`(() => {
  'use strict';
  const { create, defineProperty, freeze, getOwnPropertyDescriptors, getPrototypeOf, isExtensible } = Object;
  const { deleteProperty, ownKeys, setPrototypeOf } = Reflect;
  const global = globalThis;
  const OVERRIDABLE = ['constructor', 'name', 'message', 'toString', 'valueOf', 'toLocaleString'];
  const tame = (object, key, descriptor) => {
    const { value } = descriptor;
    defineProperty(object, key, {
      get() {
        return value;
      },
      set(next) {
        if (this === object) throw new TypeError("Cannot assign to read only property '" + key + "'");
        defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
      },
      enumerable: descriptor.enumerable,
      configurable: false,
    });
  };
  // Built-ins no global names but syntax reaches, next to the global object itself.
  const pending = [
    global,
    function* () {},
    async function () {},
    async function* () {},
    [][Symbol.iterator](),
    new Map().entries(),
    new Set().values(),
    ''[Symbol.iterator](),
    /./[Symbol.matchAll](''),
    (function () {
      return arguments;
    })(),
  ];
  const reached = new Set();
  while (pending.length > 0) {
    const value = pending.pop();
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue;
    if (reached.has(value)) continue;
    reached.add(value);
    pending.push(getPrototypeOf(value));
    const descriptors = getOwnPropertyDescriptors(value);
    for (const key of ownKeys(descriptors)) {
      const descriptor = descriptors[key];
      if (value !== global && descriptor.writable && descriptor.configurable && OVERRIDABLE.includes(key)) {
        tame(value, key, descriptor);
        const accessor = getOwnPropertyDescriptors(value)[key];
        pending.push(accessor.get, accessor.set);
      }
      pending.push(descriptor.value, descriptor.get, descriptor.set);
    }
  }
  for (const value of reached) if (value !== global) freeze(value);
  // The global object keeps only the bindings it cannot give up (undefined, NaN, Infinity); the
  // others move to a frozen object behind it, where lookups find them as before. What a call adds
  // is then all the global object holds besides those three, quick to find and remove.
  const builtins = create(getPrototypeOf(global));
  const globals = getOwnPropertyDescriptors(global);
  for (const key of ownKeys(globals)) {
    if (!globals[key].configurable) continue;
    defineProperty(builtins, key, globals[key]);
    deleteProperty(global, key);
  }
  freeze(builtins);
  setPrototypeOf(global, builtins);
  const permanent = new Set(ownKeys(global));
  /** Undoes what a call left on the global object; false when something could not be undone. */
  const clean = () => {
    if (getPrototypeOf(global) !== builtins && !setPrototypeOf(global, builtins)) return false;
    const keys = ownKeys(global);
    if (keys.length !== permanent.size) {
      for (const key of keys) if (!permanent.has(key)) deleteProperty(global, key);
      if (ownKeys(global).length !== permanent.size) return false;
    }
    return isExtensible(global);
  };
  const stale = freeze(new Error('the script context must be rebuilt'));
  const wrap = (entry) => {
    let fresh = true;
    return (input) => {
      if (!fresh) throw stale;
      try {
        return entry(input);
      } finally {
        fresh = clean();
      }
    };
  };
  return [wrap, stale];
})()`;
