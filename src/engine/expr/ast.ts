// The syntax tree, shaped like expr-lang's ast package so its parser tests translate one to one.
// `start` is the offset the node reports errors at, as expr-lang reports them.

export type Node =
  | NilNode
  | BoolNode
  | IntegerNode
  | FloatNode
  | StringNode
  | IdentifierNode
  | PointerNode
  | UnaryNode
  | BinaryNode
  | MemberNode
  | SliceNode
  | ChainNode
  | MethodCallNode
  | BuiltinNode
  | PredicateNode
  | ConditionalNode
  | ArrayNode
  | MapNode
  | LetNode
  | SequenceNode;

interface Located {
  start: number;
}

export interface NilNode extends Located {
  type: 'nil';
}

export interface BoolNode extends Located {
  type: 'bool';
  value: boolean;
}

export interface IntegerNode extends Located {
  type: 'integer';
  value: number;
}

export interface FloatNode extends Located {
  type: 'float';
  value: number;
}

export interface StringNode extends Located {
  type: 'string';
  value: string;
}

export interface IdentifierNode extends Located {
  type: 'identifier';
  name: string;
}

/** `#` (the current element), `#index` or `#acc` inside a predicate; `.field` is `#.field`. */
export interface PointerNode extends Located {
  type: 'pointer';
  name: string;
}

export interface UnaryNode extends Located {
  type: 'unary';
  operator: string;
  operand: Node;
}

export interface BinaryNode extends Located {
  type: 'binary';
  operator: string;
  left: Node;
  right: Node;
}

/** `object.name`, `object[expression]`, and their optional forms `?.name`, `?.[expression]`. */
export interface MemberNode extends Located {
  type: 'member';
  object: Node;
  property: Node;
  optional: boolean;
}

export interface SliceNode extends Located {
  type: 'slice';
  object: Node;
  from: Node | null;
  to: Node | null;
}

/** Marks the extent of an optional chain: a nil met at a `?.` makes the whole chain nil. */
export interface ChainNode extends Located {
  type: 'chain';
  node: Node;
}

/** `value.Method(arguments)`: the methods of times, durations and locations. */
export interface MethodCallNode extends Located {
  type: 'method-call';
  object: Node;
  name: string;
  optional: boolean;
  arguments: Node[];
}

export interface BuiltinNode extends Located {
  type: 'builtin';
  name: string;
  arguments: Node[];
}

/** The closure argument of `all`, `map`, `filter`...: evaluated once per element. */
export interface PredicateNode extends Located {
  type: 'predicate';
  body: Node;
}

export interface ConditionalNode extends Located {
  type: 'conditional';
  condition: Node;
  then: Node;
  otherwise: Node;
}

export interface ArrayNode extends Located {
  type: 'array';
  elements: Node[];
}

export interface MapNode extends Located {
  type: 'map';
  entries: { key: Node; value: Node }[];
}

export interface LetNode extends Located {
  type: 'let';
  name: string;
  value: Node;
  body: Node;
}

export interface SequenceNode extends Located {
  type: 'sequence';
  nodes: Node[];
}

/** The direct children of a node, in source order. */
export function childrenOf(node: Node): Node[] {
  switch (node.type) {
    case 'nil':
    case 'bool':
    case 'integer':
    case 'float':
    case 'string':
    case 'identifier':
    case 'pointer':
      return [];
    case 'unary':
      return [node.operand];
    case 'binary':
      return [node.left, node.right];
    case 'member':
      return [node.object, node.property];
    case 'slice':
      return [node.object, ...(node.from ? [node.from] : []), ...(node.to ? [node.to] : [])];
    case 'chain':
      return [node.node];
    case 'method-call':
      return [node.object, ...node.arguments];
    case 'builtin':
      return node.arguments;
    case 'predicate':
      return [node.body];
    case 'conditional':
      return [node.condition, node.then, node.otherwise];
    case 'array':
      return node.elements;
    case 'map':
      return node.entries.flatMap((entry) => [entry.key, entry.value]);
    case 'let':
      return [node.value, node.body];
    case 'sequence':
      return node.nodes;
  }
}
