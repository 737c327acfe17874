/**
 * What the walk knows about a value: its string and number literals (or that it is unknown), the
 * parameters bound at a call, and the syntax helpers every part of the walk uses.
 */
import ts from 'typescript';

export type Lit = string | number;

export class Vals {
  readonly lits = new Set<Lit>();
  unknown = false;
  nullish = false;

  static of(...lits: Lit[]): Vals {
    const v = new Vals();
    for (const l of lits) v.lits.add(l);
    return v;
  }

  static unknownValue(): Vals {
    const v = new Vals();
    v.unknown = true;
    return v;
  }

  static nullValue(): Vals {
    const v = new Vals();
    v.nullish = true;
    return v;
  }

  add(other: Vals): this {
    for (const l of other.lits) this.lits.add(l);
    this.unknown ||= other.unknown;
    this.nullish ||= other.nullish;
    return this;
  }

  /** Exactly known (no unknown part) and not empty. */
  get known(): boolean {
    return !this.unknown && this.lits.size > 0;
  }
}

export interface Closure {
  node: ts.Node;
  env: Env;
}

export interface Binding {
  values?: Lit[];
  closure?: Closure;
}

/** Bindings of parameters (by symbol) to literal values or to the functions passed for them. */
export class Env {
  static readonly empty = new Env(new Map(), '');

  private constructor(
    readonly map: ReadonlyMap<ts.Symbol, Binding>,
    readonly key: string,
  ) {}

  with(entries: [ts.Symbol, Binding, string][]): Env {
    if (!entries.length) return this;
    const map = new Map(this.map);
    const parts = this.key ? [this.key] : [];
    for (const [symbol, binding, key] of entries) {
      map.set(symbol, binding);
      parts.push(key);
    }
    return new Env(map, parts.join(';'));
  }
}

export type FunctionNode = ts.FunctionLikeDeclaration & { body?: ts.ConciseBody };

/** The name a call goes by (`f(…)`, `a.b.f(…)`), if any. */
export function calleeName(callee: ts.Expression): string | undefined {
  const e = skipOuter(callee);
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

type Wrapper =
  | ts.ParenthesizedExpression
  | ts.AsExpression
  | ts.NonNullExpression
  | ts.SatisfiesExpression
  | ts.TypeAssertion
  | ts.AwaitExpression;

function isWrapper(e: ts.Expression): e is Wrapper {
  return (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isTypeAssertionExpression(e) ||
    ts.isAwaitExpression(e)
  );
}

/** `Promise.resolve(x)`: an answer that is a promise of `x` (a method that need not be `async`). */
function resolvedValue(e: ts.Expression): ts.Expression | undefined {
  if (!ts.isCallExpression(e) || e.arguments.length !== 1) return undefined;
  const callee = e.expression;
  const named =
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'Promise' &&
    callee.name.text === 'resolve';
  return named ? e.arguments[0] : undefined;
}

/** The expression inside parentheses, casts, `!`, `await` and `Promise.resolve(…)`. */
export function skipOuter(node: ts.Expression): ts.Expression {
  let e = node;
  for (;;) {
    if (isWrapper(e)) e = e.expression;
    else {
      const inner = resolvedValue(e);
      if (!inner) return e;
      e = inner;
    }
  }
}
