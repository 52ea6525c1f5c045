// Member access, optional chaining, indexes and slices (language definition, "Membership
// Operator", "Optional chaining", "Slice Operator"; expr_test.go's optional chaining tests).
import { evalErrorTable, valueTable } from './helpers.ts';

const ENV = {
  user: { Name: 'Ada', Tags: ['x', 'y'], Address: null },
  author: { User: null },
  array: [1, 2, 3, 4, 5],
  text: 'hello',
  foo: { id: 1, bar: [{ baz: 'zero' }, { baz: 'baz' }] },
  'var with spaces': 7,
  empty: {},
};

valueTable(
  'member access',
  [
    ['user.Name', 'Ada'],
    ['user["Name"]', 'Ada'],
    ['user.Tags[1]', 'y'],
    ['user.Missing', null],
    ['user.Address', null],
    ['missing', null],
    ['array[0]', 1],
    ['array[-1]', 5],
    ['array[-5]', 1],
    ['array[1.9]', 2],
    ['{a: {b: 2}}.a.b', 2],
    ['[10, 20][1]', 20],
    ['text[0]', 'h'],
    ['text[-1]', 'o'],
    ['"北京"[1]', '京'],
    ['$env["var with spaces"]', 7],
    ['$env.user.Name', 'Ada'],
    ["'user' in $env", true],
    ["'nope' in $env", false],
    ['user.not', null],
    ['user.in', null],
  ],
  ENV,
);

valueTable(
  'optional chaining',
  [
    ['author.User?.Name', null],
    ['author.User?.Name ?? "Anonymous"', 'Anonymous'],
    ['user?.Name', 'Ada'],
    ['missing?.bar.baz', null],
    ['missing?.[1]?.[2]?.[3]', null],
    ['empty.bar?.baz', null],
    ['foo?.bar[foo?.id]?.baz', 'baz'],
    ['missing?.Year()', null],
    ['user.Address?.City', null],
    ['(missing?.a) == nil', true],
  ],
  ENV,
);

valueTable(
  'slices',
  [
    ['array[1:4]', [2, 3, 4]],
    ['array[1:-1]', [2, 3, 4]],
    ['array[:3]', [1, 2, 3]],
    ['array[3:]', [4, 5]],
    ['array[:]', [1, 2, 3, 4, 5]],
    ['array[:] == array', true],
    ['array[-2:]', [4, 5]],
    ['array[4:2]', []],
    ['array[-10:10]', [1, 2, 3, 4, 5]],
    ['text[1:3]', 'el'],
    ['text[:1]', 'h'],
    ['text[-3:]', 'llo'],
    ['"héllo"[1:2]', 'é'],
  ],
  ENV,
);

evalErrorTable(
  'member errors',
  [
    ['text.length', 'cannot fetch length from string'],
    ['user.Name.first', 'cannot fetch first from string'],
    ['missing.bar', 'cannot fetch bar from nil'],
    ['user.Address.City', 'cannot fetch City from nil'],
    ['missing?.bar + 1', 'invalid operation: nil + int'],
    ['array.length', 'cannot fetch length from array'],
    ['array[5]', 'index out of range: 5 (array length is 5)'],
    ['array[-7]', 'index out of range: -2 (array length is 5)'],
    ['array["0"]', 'cannot fetch 0 from array'],
    ['text[9]', 'index out of range: 9 (array length is 5)'],
    ['(1).foo', 'cannot fetch foo from int'],
    ['(true).foo', 'cannot fetch foo from bool'],
    ['(1)[:2]', 'cannot slice int'],
    ['missing[1:2]', 'cannot slice nil'],
    ['array["a":]', 'cannot use string as argument (type int) to call slice'],
    ['user.Name.Upper()', 'type string has no method Upper'],
    ['user.Tags.Len()', 'type array has no method Len'],
  ],
  ENV,
);
