/**
 * Resolving calls: the function bodies a callee can be (through variables, parameters bound at the
 * call, interface and abstract members), and the environment a call binds for them.
 */
import ts from 'typescript';
import { ProgramIndex } from './program-index.js';
import { Env, Vals, skipOuter, type Binding, type FunctionNode } from './values.js';

export abstract class CallResolver extends ProgramIndex {
  private memberNames: Set<string> | null = null;
  private readonly implCache = new Map<ts.Node, FunctionNode[]>();

  /** Evaluation (evaluate.ts) and resolution need each other: keys of `service[name](…)`, literal arguments. */
  protected abstract evaluate(node: ts.Expression, env: Env, path: string[], depth: number, deep: boolean): Vals;

  /** The functions a callee expression can be, with the environment each runs in. */
  protected targetsOf(callee: ts.Expression, env: Env): { fn: FunctionNode; env: Env }[] {
    const e = skipOuter(callee);
    if (ts.isFunctionLike(e)) return [{ fn: e, env }];
    if (ts.isIdentifier(e)) {
      const symbol = this.checker.getSymbolAtLocation(e);
      const bound = symbol ? env.map.get(symbol) : undefined;
      if (bound?.closure) return this.functionsOf(bound.closure.node, bound.closure.env);
    }
    if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
      const symbol = this.valueSymbol(e.expression);
      const bound = symbol ? env.map.get(symbol) : undefined;
      const literal = bound?.closure?.node;
      if (literal && ts.isObjectLiteralExpression(literal)) {
        const prop = literal.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === e.name.text);
        const value = !prop
          ? undefined
          : ts.isPropertyAssignment(prop)
            ? prop.initializer
            : ts.isShorthandPropertyAssignment(prop)
              ? prop.name
              : ts.isMethodDeclaration(prop)
                ? prop
                : undefined;
        if (value) return this.functionsOf(value, bound.closure!.env);
      }
    }
    const name = ts.isPropertyAccessExpression(e) ? e.name : ts.isElementAccessExpression(e) ? e.argumentExpression : e;
    let symbols: ts.Symbol[] = [];
    if (ts.isElementAccessExpression(e)) {
      // `service[name](…)`: the members named by the key's values.
      const keys = this.evaluate(e.argumentExpression, env, [], 0, false);
      const type = this.checker.getTypeAtLocation(e.expression);
      symbols = [...keys.lits].map((k) => type.getProperty(String(k))).filter((s): s is ts.Symbol => !!s);
      // A key the walk cannot know (`handlers[kind](…)`): any of the functions the object holds.
      if (keys.unknown) {
        const members = this.checker.getPropertiesOfType(this.checker.getApparentType(type));
        if (members.length <= 40) symbols.push(...members);
      }
    } else if (ts.isPropertyAccessExpression(e)) {
      // The member of the receiver's type: cheaper than resolving the call's own signature.
      const receiver = this.checker.getApparentType(this.checker.getTypeAtLocation(e.expression));
      const s = receiver.getProperty(e.name.text) ?? this.resolveAlias(this.checker.getSymbolAtLocation(name));
      if (s) symbols = [s];
    } else {
      const s = this.resolveAlias(this.checker.getSymbolAtLocation(name));
      if (s) symbols = [s];
    }
    const out: { fn: FunctionNode; env: Env }[] = [];
    for (const symbol of symbols) {
      for (const decl of symbol.declarations ?? []) {
        for (const fn of this.implementationsOf(decl)) out.push({ fn, env: Env.empty });
      }
    }
    return out;
  }

  /** The function(s) an expression or declaration stands for. */
  protected functionsOf(node: ts.Node, env: Env): { fn: FunctionNode; env: Env }[] {
    const e = ts.isExpression(node) ? skipOuter(node) : node;
    if (ts.isFunctionLike(e)) return (e as FunctionNode).body ? [{ fn: e as FunctionNode, env }] : [];
    if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) {
      if (ts.isIdentifier(e)) {
        const symbol = this.valueSymbol(e);
        const bound = symbol ? env.map.get(symbol) : undefined;
        if (bound?.closure) return this.functionsOf(bound.closure.node, bound.closure.env);
      }
      const symbol = this.resolveAlias(
        ts.isPropertyAccessExpression(e) ? this.checker.getSymbolAtLocation(e.name) : this.valueSymbol(e),
      );
      return (symbol?.declarations ?? []).flatMap((d) =>
        this.implementationsOf(d).map((fn) => ({ fn, env: Env.empty })),
      );
    }
    return [];
  }

  /** A declaration → the function bodies behind it (several for an interface member). */
  protected implementationsOf(decl: ts.Declaration): FunctionNode[] {
    if (!this.isProject(decl.getSourceFile())) return [];
    if (
      ts.isFunctionDeclaration(decl) ||
      ts.isMethodDeclaration(decl) ||
      ts.isConstructorDeclaration(decl) ||
      ts.isGetAccessorDeclaration(decl)
    ) {
      if (decl.body) return [decl];
      // An abstract method or an overload: every implementation.
      return ts.isMethodDeclaration(decl) ? this.interfaceImplementations(decl) : [];
    }
    if (ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) return [decl];
    if (
      (ts.isVariableDeclaration(decl) || ts.isPropertyAssignment(decl) || ts.isPropertyDeclaration(decl)) &&
      decl.initializer
    ) {
      const init = skipOuter(decl.initializer);
      if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return [init];
      return [];
    }
    if (ts.isShorthandPropertyAssignment(decl)) {
      const symbol = this.checker.getShorthandAssignmentValueSymbol(decl);
      return (symbol?.declarations ?? []).filter((d) => d !== decl).flatMap((d) => this.implementationsOf(d));
    }
    if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) return this.interfaceImplementations(decl);
    return [];
  }

  /** Members of the same name in classes and object literals whose type fits the member's owner. */
  protected interfaceImplementations(
    member: ts.MethodSignature | ts.PropertySignature | ts.MethodDeclaration,
  ): FunctionNode[] {
    const cached = this.implCache.get(member);
    if (cached) return cached;
    const name =
      member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)) ? member.name.text : undefined;
    const owner = member.parent;
    let ownerType: ts.Type | undefined;
    if (ts.isInterfaceDeclaration(owner) || ts.isClassDeclaration(owner)) {
      const s = owner.name ? this.checker.getSymbolAtLocation(owner.name) : undefined;
      ownerType = s ? this.checker.getDeclaredTypeOfSymbol(s) : undefined;
    } else if (ts.isTypeLiteralNode(owner)) {
      ownerType = this.checker.getTypeAtLocation(owner);
    }
    const found: FunctionNode[] = [];
    if (name && ownerType) {
      for (const candidate of this.implementationsNamed(name)) {
        if (candidate.fn === member) continue;
        const type = ts.isObjectLiteralExpression(candidate.container)
          ? this.checker.getTypeAtLocation(candidate.container)
          : candidate.container.name
            ? this.checker.getDeclaredTypeOfSymbol(this.checker.getSymbolAtLocation(candidate.container.name)!)
            : this.checker.getTypeAtLocation(candidate.container);
        if (this.assignable(type, ownerType)) found.push(candidate.fn);
      }
    }
    this.implCache.set(member, found);
    return found;
  }

  protected assignable(source: ts.Type, target: ts.Type): boolean {
    if (this.checker.isTypeAssignableTo(source, target)) return true;
    // A generic owner (`Port<T>`): compare with its type parameters erased.
    const erased = (target as ts.TypeReference).target;
    return !!erased && erased !== target && this.checker.isTypeAssignableTo(source, erased);
  }

  /** Names of the methods (and function-valued properties) of the program's classes, objects and interfaces. */
  protected projectMemberNames(): Set<string> {
    if (this.memberNames) return this.memberNames;
    const names = new Set<string>();
    const fnType = (t: ts.TypeNode | undefined) =>
      !!t && (ts.isFunctionTypeNode(t) || (ts.isUnionTypeNode(t) && t.types.some(ts.isFunctionTypeNode)));
    for (const file of this.files) {
      const visit = (node: ts.Node): void => {
        const member =
          ts.isMethodDeclaration(node) ||
          ts.isGetAccessorDeclaration(node) ||
          ts.isMethodSignature(node) ||
          ts.isShorthandPropertyAssignment(node) ||
          ((ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) &&
            !!node.initializer &&
            this.isFunctionValue(node.initializer)) ||
          (ts.isPropertySignature(node) && fnType(node.type));
        const n = (node as ts.NamedDeclaration).name;
        if (member && n && (ts.isIdentifier(n) || ts.isStringLiteral(n))) names.add(n.text);
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
    this.memberNames = names;
    return names;
  }

  /** An arrow or function expression, or a name that holds one. */
  protected isFunctionValue(node: ts.Expression): boolean {
    const e = skipOuter(node);
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return true;
    if (!ts.isIdentifier(e)) return false;
    return (this.resolveAlias(this.checker.getSymbolAtLocation(e))?.declarations ?? []).some(
      (d) => this.implementationsOf(d).length > 0,
    );
  }

  /** A call's environment: its parameters bound to literal arguments and to functions passed. */
  protected bind(fn: FunctionNode, args: ts.NodeArray<ts.Expression>, callerEnv: Env, base: Env): Env {
    const entries: [ts.Symbol, Binding, string][] = [];
    fn.parameters.forEach((param, i) => {
      if (!ts.isIdentifier(param.name)) return;
      const symbol = this.checker.getSymbolAtLocation(param.name);
      if (!symbol) return;
      const arg = args[i] ?? param.initializer;
      if (!arg) return;
      const argEnv = args[i] ? callerEnv : base;
      const e = skipOuter(arg);
      // A function, or an object carrying functions (`{ handler }`), is kept with its environment.
      if (ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isObjectLiteralExpression(e)) {
        entries.push([
          symbol,
          { closure: { node: e, env: argEnv } },
          `${this.symbolKey(symbol)}=${this.nodeKey(e)}(${argEnv.key})`,
        ]);
        return;
      }
      if (ts.isIdentifier(e)) {
        const s = this.valueSymbol(e);
        const bound = s ? argEnv.map.get(s) : undefined;
        if (bound) {
          entries.push([
            symbol,
            bound,
            `${this.symbolKey(symbol)}=${bound.values ? bound.values.join('|') : this.nodeKey(bound.closure!.node)}`,
          ]);
          return;
        }
      }
      // Only strings and numbers carry statuses and codes; other arguments are not evaluated.
      if (!this.primitiveParameter(symbol, param)) {
        const fns = ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) ? this.functionsOf(e, argEnv) : [];
        const [only] = fns;
        if (only && fns.length === 1) {
          entries.push([
            symbol,
            { closure: { node: only.fn, env: only.env } },
            `${this.symbolKey(symbol)}=${this.nodeKey(only.fn)}`,
          ]);
        }
        return;
      }
      const values = this.evaluate(arg, argEnv, [], 0, true);
      if (values.known)
        entries.push([symbol, { values: [...values.lits] }, `${this.symbolKey(symbol)}=${[...values.lits].join('|')}`]);
    });
    return base.with(entries);
  }

  protected primitiveParameter(symbol: ts.Symbol, param: ts.ParameterDeclaration): boolean {
    const type = this.checker.getTypeOfSymbolAtLocation(symbol, param);
    const parts = type.isUnion() ? type.types : [type];
    return parts.every(
      (t) =>
        !!(t.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.Null | ts.TypeFlags.Undefined)),
    );
  }
}
