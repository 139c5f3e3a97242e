// The checkpoint language of lab sheets: one line that is true or false of a run's summary.json.
//
//   jain() >= 0.9
//   share("cubic") > share("reno")
//   metric("recovery.time", "reno") within 20% of rate() / 8 * rtt()^2 / (2 * mss)
//   verdict == "valid" and utilisation() > 0.8
//
// Grammar (precedence from loose to tight):
//   check := or ;  or := and ("or" and)* ;  and := not ("and" not)* ;  not := "not" not | cmp
//   cmp   := sum (("<" | "<=" | ">" | ">=" | "==" | "!=") sum | "within" NUMBER "%" "of" sum)?
//   sum   := prod (("+" | "-") prod)* ;  prod := unary (("*" | "/") unary)*
//   unary := "-" unary | pow ;  pow := atom ("^" unary)?
//   atom  := NUMBER | STRING | NAME | NAME "(" args? ")" | "(" check ")"
// This file parses; checkEval.ts gives names and functions their meaning over a summary.

export type Node =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'name'; name: string; at: number }
  | { kind: 'call'; name: string; args: Node[]; at: number }
  | { kind: 'neg'; arg: Node }
  | { kind: 'not'; arg: Node }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/' | '^'; left: Node; right: Node }
  | { kind: 'cmp'; op: '<' | '<=' | '>' | '>=' | '==' | '!='; left: Node; right: Node }
  | { kind: 'within'; percent: number; left: Node; right: Node }
  | { kind: 'logic'; op: 'and' | 'or'; left: Node; right: Node };

/** A syntax error: `at` is the 1-based character where the text stops making sense. */
export class CheckSyntaxError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(`at character ${at}: ${message}`);
    this.name = 'CheckSyntaxError';
  }
}

interface Token {
  type: 'num' | 'str' | 'name' | 'op' | 'end';
  text: string;
  at: number;
}

const OPS = ['<=', '>=', '==', '!=', '<', '>', '+', '-', '*', '/', '^', '(', ')', ',', '%'];

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i + 1;
    const num = /^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ type: 'num', text: num[0], at });
      i += num[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new CheckSyntaxError(`the text starting with ${c} is not closed`, at);
      out.push({ type: 'str', text: src.slice(i + 1, end), at });
      i = end + 1;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(src.slice(i));
    if (name) {
      out.push({ type: 'name', text: name[0], at });
      i += name[0].length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new CheckSyntaxError(`unexpected ${JSON.stringify(c)}`, at);
    out.push({ type: 'op', text: op, at });
    i += op.length;
  }
  out.push({ type: 'end', text: '', at: src.length + 1 });
  return out;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'within', 'of']);

class Parser {
  private i = 0;
  constructor(private readonly t: Token[]) {}

  private peek(): Token {
    return this.t[this.i] as Token;
  }
  private next(): Token {
    return this.t[this.i++] as Token;
  }
  private isOp(text: string) {
    const p = this.peek();
    return p.type === 'op' && p.text === text;
  }
  private isWord(text: string) {
    const p = this.peek();
    return p.type === 'name' && p.text === text;
  }
  private expectOp(text: string, what: string) {
    const p = this.next();
    if (p.type !== 'op' || p.text !== text)
      throw new CheckSyntaxError(`expected ${what}, found ${describe(p)}`, p.at);
  }

  parse(): Node {
    const n = this.or();
    const end = this.peek();
    if (end.type !== 'end') throw new CheckSyntaxError(`unexpected ${describe(end)}`, end.at);
    return n;
  }

  private or(): Node {
    let left = this.and();
    while (this.isWord('or')) {
      this.next();
      left = { kind: 'logic', op: 'or', left, right: this.and() };
    }
    return left;
  }
  private and(): Node {
    let left = this.not();
    while (this.isWord('and')) {
      this.next();
      left = { kind: 'logic', op: 'and', left, right: this.not() };
    }
    return left;
  }
  private not(): Node {
    if (this.isWord('not')) {
      this.next();
      return { kind: 'not', arg: this.not() };
    }
    return this.cmp();
  }
  private cmp(): Node {
    const left = this.sum();
    const p = this.peek();
    if (p.type === 'op' && ['<', '<=', '>', '>=', '==', '!='].includes(p.text)) {
      this.next();
      return { kind: 'cmp', op: p.text as '<', left, right: this.sum() };
    }
    if (this.isWord('within')) {
      this.next();
      const n = this.next();
      if (n.type !== 'num') throw new CheckSyntaxError(`expected a percentage after within`, n.at);
      this.expectOp('%', '% after the number');
      if (!this.isWord('of'))
        throw new CheckSyntaxError(`expected "of" after within ${n.text}%`, this.peek().at);
      this.next();
      return { kind: 'within', percent: Number(n.text), left, right: this.sum() };
    }
    return left;
  }
  private sum(): Node {
    let left = this.prod();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().text as '+';
      left = { kind: 'bin', op, left, right: this.prod() };
    }
    return left;
  }
  private prod(): Node {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/')) {
      const op = this.next().text as '*';
      left = { kind: 'bin', op, left, right: this.unary() };
    }
    return left;
  }
  private unary(): Node {
    if (this.isOp('-')) {
      this.next();
      return { kind: 'neg', arg: this.unary() };
    }
    const base = this.atom();
    if (this.isOp('^')) {
      this.next();
      return { kind: 'bin', op: '^', left: base, right: this.unary() };
    }
    return base;
  }
  private atom(): Node {
    const p = this.next();
    if (p.type === 'num') return { kind: 'num', value: Number(p.text) };
    if (p.type === 'str') return { kind: 'str', value: p.text };
    if (p.type === 'op' && p.text === '(') {
      const inner = this.or();
      this.expectOp(')', '")"');
      return inner;
    }
    if (p.type === 'name' && !KEYWORDS.has(p.text)) {
      if (!this.isOp('(')) return { kind: 'name', name: p.text, at: p.at };
      this.next();
      const args: Node[] = [];
      if (!this.isOp(')')) {
        args.push(this.sum());
        while (this.isOp(',')) {
          this.next();
          args.push(this.sum());
        }
      }
      this.expectOp(')', `")" to close ${p.text}(`);
      return { kind: 'call', name: p.text, args, at: p.at };
    }
    throw new CheckSyntaxError(`expected a number, a name or "(", found ${describe(p)}`, p.at);
  }
}

const describe = (t: Token) => (t.type === 'end' ? 'the end' : JSON.stringify(t.text));

export function parseCheck(src: string): Node {
  return new Parser(tokenize(src)).parse();
}
