// A port of expr-lang's precedence-climbing parser (parser/parser.go): the same operator table,
// `not in` style negation, chained comparisons, `??` that will not mix with other operators
// unparenthesised, the pipe, predicates, `let`, `if {} else {}` and `;` sequences.
import type { Node } from './ast.ts';
import { BINARY_OPERATORS, COMPARISONS, NEGATABLE, POINTERS, UNARY_PRECEDENCE } from './grammar.ts';
import type { Token } from './lexer.ts';
import { parseNumber } from './number-literal.ts';
import { TermParser } from './term-parser.ts';

/** Recursion of the parser: parentheses, brackets, unary operators and right operands. */
export const MAX_NESTING = 200;

export function parse(source: string): Node {
  return new Parser(source).parseAll();
}

class Parser extends TermParser {
  private nesting = 0;

  parseAll(): Node {
    const node = this.parseSequence();
    if (this.current.kind !== 'eof') throw this.unexpected();
    return node;
  }

  protected parseSequence(): Node {
    const nodes = [this.parseExpression(0)];
    while (this.is('operator', ';')) {
      this.next();
      if (this.is('eof')) break;
      nodes.push(this.parseExpression(0));
    }
    if (nodes.length === 1) return nodes[0] as Node;
    return this.make({ type: 'sequence', nodes, start: (nodes[0] as Node).start });
  }

  protected parseExpression(precedence: number): Node {
    this.nesting += 1;
    if (this.nesting > MAX_NESTING) {
      throw this.error(`expression nests too deeply (more than ${MAX_NESTING} levels)`, this.current.start);
    }
    const node = this.parseOperators(precedence);
    this.nesting -= 1;
    return node;
  }

  private parseOperators(precedence: number): Node {
    if (precedence === 0 && this.is('operator', 'let')) return this.parseLet();
    if (precedence === 0 && this.is('operator', 'if')) return this.parseIf();

    let left = this.parsePrimary();
    let previous = '';
    let operator = this.current;
    while (operator.kind === 'operator') {
      let notToken: Token | undefined;
      if (operator.value === 'not') {
        const backup = this.index;
        this.next();
        if (!(this.current.kind === 'operator' && NEGATABLE.has(this.current.value))) throw this.unexpected();
        if ((BINARY_OPERATORS.get(this.current.value)?.precedence ?? -1) < precedence) {
          this.index = backup;
          break;
        }
        notToken = operator;
        operator = this.current;
      }
      const binary = BINARY_OPERATORS.get(operator.value);
      if (binary === undefined || binary.precedence < precedence) break;
      this.next();

      if (operator.value === '|') {
        const name = this.current;
        this.expect('identifier');
        left = this.parseCall(name, [left]);
      } else if (previous === '??' && operator.value !== '??') {
        throw this.error(
          `Operator (${operator.value}) and coalesce expressions (??) cannot be mixed. Wrap either by parentheses.`,
          operator.start,
        );
      } else if (COMPARISONS.has(operator.value)) {
        left = this.parseComparison(left, operator, binary.precedence);
      } else {
        const right = this.parseExpression(
          binary.rightAssociative ? binary.precedence : binary.precedence + 1,
        );
        left = this.make({ type: 'binary', operator: operator.value, left, right, start: operator.start });
        if (notToken)
          left = this.make({ type: 'unary', operator: 'not', operand: left, start: notToken.start });
      }
      previous = operator.value;
      operator = this.current;
    }
    return precedence === 0 ? this.parseConditional(left) : left;
  }

  /** `1 < 2 < 3` becomes `1 < 2 && 2 < 3`, as in expr-lang. */
  private parseComparison(left: Node, operator: Token, precedence: number): Node {
    let root: Node | undefined;
    for (;;) {
      const right = this.parseExpression(precedence + 1);
      const comparison = this.make({
        type: 'binary',
        operator: operator.value,
        left,
        right,
        start: operator.start,
      });
      root = root
        ? this.make({ type: 'binary', operator: '&&', left: root, right: comparison, start: operator.start })
        : comparison;
      left = right;
      operator = this.current;
      if (!(operator.kind === 'operator' && COMPARISONS.has(operator.value))) return root;
      this.next();
    }
  }

  private parseConditional(node: Node): Node {
    while (this.is('operator', '?')) {
      const start = this.current.start;
      this.next();
      let then: Node;
      if (this.is('operator', ':')) {
        this.next();
        then = node;
      } else {
        then = this.parseExpression(0);
        this.expect('operator', ':');
      }
      const otherwise = this.parseExpression(0);
      node = this.make({ type: 'conditional', condition: node, then, otherwise, start });
    }
    return node;
  }

  private parseLet(): Node {
    this.expect('operator', 'let');
    const name = this.current;
    this.expect('identifier');
    this.expect('operator', '=');
    const value = this.parseExpression(0);
    this.expect('operator', ';');
    const body = this.parseSequence();
    return this.make({ type: 'let', name: name.value, value, body, start: name.start });
  }

  private parseIf(): Node {
    const start = this.current.start;
    this.next();
    const condition = this.parseExpression(0);
    this.expect('bracket', '{');
    const then = this.parseSequence();
    this.expect('bracket', '}');
    this.expect('operator', 'else');
    let otherwise: Node;
    if (this.is('operator', 'if')) {
      otherwise = this.parseIf();
    } else {
      this.expect('bracket', '{');
      otherwise = this.parseSequence();
      this.expect('bracket', '}');
    }
    return this.make({ type: 'conditional', condition, then, otherwise, start });
  }

  private parsePrimary(): Node {
    const token = this.current;
    const unary = token.kind === 'operator' ? UNARY_PRECEDENCE.get(token.value) : undefined;
    if (unary !== undefined) {
      this.next();
      const operand = this.parseExpression(unary);
      return this.parsePostfix(
        this.make({ type: 'unary', operator: token.value, operand, start: token.start }),
      );
    }
    if (this.is('bracket', '(')) {
      this.next();
      const node = this.parseSequence();
      this.expect('bracket', ')');
      return this.parsePostfix(node);
    }
    if (this.predicateDepth > 0 && (this.is('operator', '#') || this.is('operator', '.'))) {
      let name = '';
      if (this.is('operator', '#')) {
        this.next();
        if (this.is('identifier')) {
          name = this.current.value;
          this.next();
        }
      }
      if (!POINTERS.has(name)) throw this.error(`unknown pointer #${name}`, token.start);
      return this.parsePostfix(this.make({ type: 'pointer', name, start: token.start }));
    }
    if (this.is('operator', '::')) {
      this.next();
      const name = this.current;
      this.expect('identifier');
      return this.parsePostfix(this.parseCall(name, []));
    }
    return this.parseSecondary();
  }

  private parseSecondary(): Node {
    const token = this.current;
    switch (token.kind) {
      case 'identifier': {
        this.next();
        if (token.value === 'true' || token.value === 'false') {
          return this.make({ type: 'bool', value: token.value === 'true', start: token.start });
        }
        if (token.value === 'nil') return this.make({ type: 'nil', start: token.start });
        const node = this.is('bracket', '(')
          ? this.parseCall(token, [])
          : this.make({ type: 'identifier', name: token.value, start: token.start });
        return this.parsePostfix(node);
      }
      case 'number': {
        this.next();
        const literal = parseNumber(token.value);
        if (typeof literal === 'string') throw this.error(literal, token.start);
        return this.make({ ...literal, start: token.start });
      }
      case 'string':
        this.next();
        return this.parsePostfix(this.make({ type: 'string', value: token.value, start: token.start }));
      case 'bracket':
        if (token.value === '[') return this.parsePostfix(this.parseArray());
        if (token.value === '{') return this.parsePostfix(this.parseMap());
        throw this.unexpected();
      case 'operator':
      case 'eof':
        throw this.unexpected();
    }
  }
}
