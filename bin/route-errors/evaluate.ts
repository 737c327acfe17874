/** Evaluating expressions to the literals they can be: statuses and codes of errors, route ids. */
import ts from 'typescript';
import { CallResolver } from './resolve.js';
import { Vals, skipOuter, type Env, type FunctionNode } from './values.js';

export abstract class Evaluator extends CallResolver {
  private readonly returning = new Set<ts.Node>();

  /**
   * What an expression (or the property `path` of its value) can be. `deep` follows a value into
   * the returns of the calls that produce it.
   */
  protected evaluate(node: ts.Expression, env: Env, path: string[], depth: number, deep: boolean): Vals {
    if (depth > 10) return Vals.unknownValue();
    const e = skipOuter(node);
    if (!path.length) {
      if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return Vals.of(e.text);
      if (ts.isNumericLiteral(e)) return Vals.of(Number(e.text));
      if (e.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(e) && e.text === 'undefined'))
        return Vals.nullValue();
    }
    if (ts.isConditionalExpression(e)) {
      const decided = this.decide(e.condition, env);
      if (decided === true) return this.evaluate(e.whenTrue, env, path, depth + 1, deep);
      if (decided === false) return this.evaluate(e.whenFalse, env, path, depth + 1, deep);
      return this.evaluate(e.whenTrue, env, path, depth + 1, deep).add(
        this.evaluate(e.whenFalse, env, path, depth + 1, deep),
      );
    }
    if (
      ts.isBinaryExpression(e) &&
      (e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
        e.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    ) {
      const left = this.evaluate(e.left, env, path, depth + 1, deep);
      const right = this.evaluate(e.right, env, path, depth + 1, deep);
      const out = new Vals().add(right);
      for (const l of left.lits) out.lits.add(l);
      out.unknown ||= left.unknown;
      return out;
    }
    if (ts.isObjectLiteralExpression(e) && path.length) {
      const [head, ...rest] = path;
      for (const p of [...e.properties].reverse()) {
        if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === head) {
          if (ts.isPropertyAssignment(p)) return this.evaluate(p.initializer, env, rest, depth + 1, deep);
          if (ts.isShorthandPropertyAssignment(p)) return this.evaluate(p.name, env, rest, depth + 1, deep);
        }
        if (ts.isSpreadAssignment(p)) return this.evaluate(p.expression, env, path, depth + 1, deep);
      }
      return Vals.nullValue(); // a missing property reads undefined
    }
    if (ts.isIdentifier(e)) {
      const symbol = this.valueSymbol(e);
      const bound = symbol ? env.map.get(symbol) : undefined;
      if (bound?.values && !path.length) return Vals.of(...bound.values);
      if (bound?.closure && path.length && ts.isObjectLiteralExpression(bound.closure.node)) {
        return this.evaluate(bound.closure.node, bound.closure.env, path, depth + 1, deep);
      }
      const typed = path.length ? undefined : this.typeLiterals(e);
      if (typed?.known || (typed && !typed.unknown && typed.nullish)) return typed;
      const decl = this.resolveAlias(symbol)?.valueDeclaration;
      if (
        decl &&
        ts.isVariableDeclaration(decl) &&
        decl.initializer &&
        ts.isIdentifier(decl.name) &&
        ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const
      ) {
        return this.evaluate(decl.initializer, env, path, depth + 1, deep);
      }
      return typed ?? Vals.unknownValue();
    }
    if (
      ts.isPropertyAccessExpression(e) ||
      (ts.isElementAccessExpression(e) && ts.isStringLiteral(e.argumentExpression))
    ) {
      const typed = path.length ? undefined : this.typeLiterals(e);
      if (typed?.known) return typed;
      const key = ts.isPropertyAccessExpression(e) ? e.name.text : (e.argumentExpression as ts.StringLiteral).text;
      const inner = this.evaluate(e.expression, env, [key, ...path], depth + 1, deep);
      return inner.known || !typed ? inner : typed;
    }
    if (ts.isCallExpression(e) && deep) {
      const out = new Vals();
      const targets = this.targetsOf(e.expression, env);
      if (!targets.length) return path.length ? Vals.unknownValue() : (this.typeLiterals(e) ?? Vals.unknownValue());
      for (const target of targets) {
        // A recursive return (a guard that asks the guard before it) adds nothing new.
        if (this.returning.has(target.fn)) continue;
        const inner = this.bind(target.fn, e.arguments, env, target.env);
        const returns = this.returnsOf(target.fn);
        if (!returns.length) out.unknown = true;
        this.returning.add(target.fn);
        for (const r of returns) out.add(this.evaluate(r, inner, path, depth + 1, deep));
        this.returning.delete(target.fn);
      }
      return out;
    }
    return path.length ? Vals.unknownValue() : (this.typeLiterals(e) ?? Vals.unknownValue());
  }

  protected returnsOf(fn: FunctionNode): ts.Expression[] {
    if (!fn.body) return [];
    if (!ts.isBlock(fn.body)) return [fn.body];
    const out: ts.Expression[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isReturnStatement(node) && node.expression) out.push(node.expression);
      if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
    };
    visit(fn.body);
    return out;
  }

  /** `x === 'a'` and the like, when both sides are known single values. */
  protected decide(condition: ts.Expression, env: Env): boolean | undefined {
    const c = skipOuter(condition);
    if (!ts.isBinaryExpression(c)) return undefined;
    const op = c.operatorToken.kind;
    const equal = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.EqualsEqualsToken;
    const unequal = op === ts.SyntaxKind.ExclamationEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsToken;
    if (!equal && !unequal) return undefined;
    const left = this.evaluate(c.left, env, [], 0, false);
    const right = this.evaluate(c.right, env, [], 0, false);
    if (!left.known || !right.known || left.lits.size !== 1 || right.lits.size !== 1) return undefined;
    const same = [...left.lits][0] === [...right.lits][0];
    return equal ? same : !same;
  }

  /** The literal members of an expression's type (`'a' | 'b' | null`), or undefined when it has others. */
  protected typeLiterals(node: ts.Node): Vals | undefined {
    const type = this.checker.getTypeAtLocation(node);
    const parts = type.isUnion() ? type.types : [type];
    const out = new Vals();
    for (const t of parts) {
      if (t.isStringLiteral() || t.isNumberLiteral()) out.lits.add(t.value);
      else if (t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) out.nullish = true;
      else return undefined;
    }
    return out;
  }
}
