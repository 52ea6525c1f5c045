// The terms of the grammar that sit between operators: calls (with predicate arguments), array
// and map literals, and the postfix chain of `.name`, `?.name`, `[index]`, `[from:to]` and
// method calls, with expr-lang's rules for where an optional chain starts and ends.
import type { BuiltinNode, Node, PredicateNode } from './ast.ts';
import { PREDICATE_BUILTINS } from './grammar.ts';
import { describeToken, isLetter, isLetterOrDigit, type Token } from './lexer.ts';
import { TokenStream } from './token-stream.ts';

export abstract class TermParser extends TokenStream {
  /** How many predicates enclose the current position: `#` and `.name` are valid inside one. */
  protected predicateDepth = 0;

  protected abstract parseExpression(precedence: number): Node;
  protected abstract parseSequence(): Node;

  /** A call by name: a predicate builtin parses its closure argument; the rest take expressions. */
  protected parseCall(name: Token, leading: Node[]): BuiltinNode {
    const shape = PREDICATE_BUILTINS.get(name.value);
    if (shape === undefined) {
      const args = this.parseArguments(leading);
      return this.make({ type: 'builtin', name: name.value, arguments: args, start: name.start });
    }
    this.expect('bracket', '(');
    const args = [...leading];
    const remaining = shape.slice(leading.length);
    for (const [position, kind] of remaining.entries()) {
      if (this.is('bracket', ')')) {
        if (kind.startsWith('optional')) break;
        throw this.error(`expected at least ${remaining.length} arguments`, this.current.start);
      }
      if (position > 0) this.expect('operator', ',');
      args.push(kind.endsWith('predicate') ? this.parsePredicate() : this.parseExpression(0));
    }
    if (this.is('operator', ',')) this.next();
    this.expect('bracket', ')');
    return this.make({ type: 'builtin', name: name.value, arguments: args, start: name.start });
  }

  protected parseArguments(leading: Node[]): Node[] {
    const args = [...leading];
    this.expect('bracket', '(');
    while (!this.is('bracket', ')')) {
      if (args.length > leading.length) {
        this.expect('operator', ',');
        if (this.is('bracket', ')')) break;
      }
      args.push(this.parseExpression(0));
    }
    this.expect('bracket', ')');
    return args;
  }

  protected parsePredicate(): PredicateNode {
    const start = this.current.start;
    const braced = this.is('bracket', '{');
    if (braced) this.next();
    this.predicateDepth += 1;
    const body = braced ? this.parseSequence() : this.parseExpression(0);
    if (!braced && this.is('operator', ';')) {
      throw this.error('wrap predicate with brackets { and }', this.current.start);
    }
    this.predicateDepth -= 1;
    if (braced) this.expect('bracket', '}');
    return this.make({ type: 'predicate', body, start });
  }

  protected parseArray(): Node {
    const start = this.current.start;
    const elements: Node[] = [];
    this.expect('bracket', '[');
    while (!this.is('bracket', ']')) {
      if (elements.length > 0) {
        this.expect('operator', ',');
        if (this.is('bracket', ']')) break;
      }
      elements.push(this.parseExpression(0));
    }
    this.expect('bracket', ']');
    return this.make({ type: 'array', elements, start });
  }

  protected parseMap(): Node {
    const start = this.current.start;
    const entries: { key: Node; value: Node }[] = [];
    this.expect('bracket', '{');
    while (!this.is('bracket', '}')) {
      if (entries.length > 0) {
        this.expect('operator', ',');
        if (this.is('bracket', '}')) break;
        if (this.is('operator', ',')) throw this.unexpected();
      }
      const token = this.current;
      let key: Node;
      if (token.kind === 'number' || token.kind === 'string' || token.kind === 'identifier') {
        key = this.make({ type: 'string', value: token.value, start: token.start });
        this.next();
      } else if (this.is('bracket', '(')) {
        key = this.parseExpression(0);
      } else {
        throw this.error(
          'a map key must be a quoted string, a number, a identifier, or an expression enclosed in ' +
            `parentheses (unexpected token ${describeToken(token)})`,
          token.start,
        );
      }
      this.expect('operator', ':');
      entries.push({ key, value: this.parseExpression(0) });
    }
    this.expect('bracket', '}');
    return this.make({ type: 'map', entries, start });
  }

  protected parsePostfix(node: Node): Node {
    for (;;) {
      const token = this.current;
      if (token.value === '.' || token.value === '?.') {
        if (token.kind !== 'operator') return node;
        const optional = token.value === '?.';
        this.next();
        if (optional && this.is('bracket', '[')) {
          node = this.parseIndex(node, true);
          continue;
        }
        node = this.parseProperty(node, optional);
      } else if (token.kind === 'bracket' && token.value === '[') {
        node = this.parseIndex(node, false);
      } else {
        return node;
      }
    }
  }

  /** `.name` or `.name(...)`; keeps extending the optional chain it continues, if any. */
  protected parseProperty(node: Node, optional: boolean): Node {
    const property = this.current;
    this.next();
    const isName =
      property.kind === 'identifier' || (property.kind === 'operator' && isIdentifier(property.value));
    if (!isName) throw this.error('expected name', property.start);
    const inChain = node.type === 'chain';
    const object = node.type === 'chain' ? node.node : node;
    let member: Node;
    if (this.is('bracket', '(')) {
      const args = this.parseArguments([]);
      member = this.make({
        type: 'method-call',
        object,
        name: property.value,
        optional,
        arguments: args,
        start: property.start,
      });
    } else {
      const name = this.make({ type: 'string', value: property.value, start: property.start });
      member = this.make({ type: 'member', object, property: name, optional, start: property.start });
    }
    return inChain || optional ? this.make({ type: 'chain', node: member, start: property.start }) : member;
  }

  /** `[index]`, `[from:to]` and their optional form `?.[index]`. */
  protected parseIndex(object: Node, optional: boolean): Node {
    const start = this.current.start;
    this.expect('bracket', '[');
    let from: Node | null = null;
    if (!this.is('operator', ':')) {
      from = this.parseExpression(0);
      if (!this.is('operator', ':')) {
        this.expect('bracket', ']');
        const member = this.make({ type: 'member', object, property: from, optional, start });
        return optional ? this.make({ type: 'chain', node: member, start }) : member;
      }
    }
    this.next();
    const to = this.is('bracket', ']') ? null : this.parseExpression(0);
    this.expect('bracket', ']');
    return this.make({ type: 'slice', object, from, to, start });
  }
}

function isIdentifier(text: string): boolean {
  const [first, ...rest] = text;
  return first !== undefined && isLetter(first) && rest.every(isLetterOrDigit);
}
