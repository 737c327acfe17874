/** Walking a function's body, transitively through the calls it makes, for the errors it can throw. */
import ts from 'typescript';
import { join } from 'node:path';
import { defaultErrorCode } from '../../core/http/errors.js';
import { Evaluator } from './evaluate.js';
import type { RouteError, UnresolvedError } from './types.js';
import { Env, calleeName, skipOuter, type FunctionNode } from './values.js';

/** Boom's own factories → status (their code is the envelope's default for the status). */
const BOOM_FACTORIES: Record<string, number> = {
  badRequest: 400,
  unauthorized: 401,
  paymentRequired: 402,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  notAcceptable: 406,
  clientTimeout: 408,
  conflict: 409,
  resourceGone: 410,
  preconditionFailed: 412,
  entityTooLarge: 413,
  unsupportedMediaType: 415,
  badData: 422,
  locked: 423,
  tooManyRequests: 429,
  internal: 500,
  badImplementation: 500,
  notImplemented: 501,
  badGateway: 502,
  serverUnavailable: 503,
  gatewayTimeout: 504,
};

export interface Effects {
  errors: Map<string, RouteError>;
  unresolved: Map<string, UnresolvedError>;
}

export const newEffects = (): Effects => ({ errors: new Map(), unresolved: new Map() });

export function merge(into: Effects, from: Effects): void {
  for (const [k, v] of from.errors) into.errors.set(k, v);
  for (const [k, v] of from.unresolved) into.unresolved.set(k, v);
}

export class FunctionWalker extends Evaluator {
  private readonly memo = new Map<string, Effects>();
  private readonly inProgress = new Set<string>();
  private readonly httpErrorDecl: ts.Node | undefined;

  constructor(program: ts.Program, root: string) {
    super(program, root);
    const errorsFile = program.getSourceFile(join(root, 'core/http/errors.ts'));
    this.httpErrorDecl = errorsFile?.statements.find(
      (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === 'httpError',
    );
    if (!this.httpErrorDecl) throw new Error('route-errors: httpError not found in core/http/errors.ts');
  }

  protected walkFunction(fn: FunctionNode, env: Env): Effects {
    const key = `${this.nodeKey(fn)}|${env.key}`;
    const done = this.memo.get(key);
    if (done) return done;
    if (this.inProgress.has(key) || !fn.body) return newEffects();
    this.inProgress.add(key);
    const effects = newEffects();
    this.visit(fn.body, env, effects);
    this.inProgress.delete(key);
    this.memo.set(key, effects);
    return effects;
  }

  protected visit(node: ts.Node, env: Env, out: Effects): void {
    // A condition the environment decides (`kind === 'retry' ? …`) runs one branch.
    if (ts.isConditionalExpression(node) || ts.isIfStatement(node)) {
      const condition = ts.isIfStatement(node) ? node.expression : node.condition;
      const decided = env.key ? this.decide(condition, env) : undefined;
      if (decided !== undefined) {
        const taken = ts.isIfStatement(node)
          ? decided
            ? node.thenStatement
            : node.elseStatement
          : decided
            ? node.whenTrue
            : node.whenFalse;
        if (taken) this.visit(taken, env, out);
        return;
      }
    }
    if (ts.isTryStatement(node)) {
      const inner = newEffects();
      this.visit(node.tryBlock, env, inner);
      if (!node.catchClause || this.rethrows(node.catchClause.variableDeclaration?.name, node.catchClause.block))
        merge(out, inner);
      if (node.catchClause) this.visit(node.catchClause.block, env, out);
      if (node.finallyBlock) this.visit(node.finallyBlock, env, out);
      return;
    }
    if (ts.isCallExpression(node)) {
      // `promise.catch(() => fallback)`: what the promise throws does not get out.
      const callee = node.expression;
      const handler = node.arguments[0];
      const isCatch = ts.isPropertyAccessExpression(callee) && callee.name.text === 'catch';
      if (isCatch && handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
        const body = handler.body;
        const swallowed = !this.rethrows(handler.parameters[0]?.name, body);
        this.visit(callee.expression, env, swallowed ? newEffects() : out);
        this.visit(handler, env, out);
        return;
      }
      this.call(node, env, out);
    } else if (ts.isNewExpression(node)) {
      this.construct(node, env, out);
    }
    // A function nested here (a callback, a transaction body) is taken as run here.
    if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    ts.forEachChild(node, (child) => this.visit(child, env, out));
  }

  /** Whether a catch block throws the caught error again (or an error made from it). */
  protected rethrows(name: ts.BindingName | undefined, block: ts.Node): boolean {
    let found = false;
    const caught = name && ts.isIdentifier(name) ? name.text : null;
    const visit = (node: ts.Node): void => {
      if (found) return;
      if (ts.isThrowStatement(node) && caught) {
        // `throw err`, or `throw hostFailure(err)` (a helper may hand the error back); a new error
        // built from it (`new McpError(…, err.message)`) is another error, walked where it is made.
        const thrown = skipOuter(node.expression);
        const isCaught = (n: ts.Expression) =>
          ts.isIdentifier(skipOuter(n)) && (skipOuter(n) as ts.Identifier).text === caught;
        if (isCaught(thrown) || (ts.isCallExpression(thrown) && thrown.arguments.some(isCaught))) found = true;
      }
      if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
    };
    visit(block);
    return found;
  }

  protected call(node: ts.CallExpression, env: Env, out: Effects): void {
    const name = calleeName(node.expression);
    if (name === 'httpError' && this.checker.getResolvedSignature(node)?.declaration === this.httpErrorDecl) {
      const [status, code] = node.arguments;
      this.record(status, code, env, node, out);
      return;
    }
    // `request.actor()` is a hapi decoration (core/http/actor.ts), which the walk cannot follow: without
    // `{ anonymous: true }` it answers 401 unauthenticated to a request nobody signed.
    if (
      name === 'actor' &&
      ts.isPropertyAccessExpression(skipOuter(node.expression)) &&
      !node.arguments.some((a) => /\banonymous\s*:\s*true\b/.test(a.getText()))
    ) {
      this.addError(out, 401, 'unauthenticated');
      return;
    }
    const boom = name && name in BOOM_FACTORIES ? this.boomFactory(node) : undefined;
    if (boom !== undefined) {
      this.addError(out, boom, null);
      return;
    }
    // Resolving a method call is the dear part (the checker types the receiver's chain and infers
    // generics): a method name no class, object or interface of the program has (query builders,
    // collections) is a library call.
    const callee = skipOuter(node.expression);
    if (ts.isPropertyAccessExpression(callee) && !this.projectMemberNames().has(callee.name.text))
      return this.callbacks(node, env, out);
    for (const target of this.targetsOf(node.expression, env)) {
      merge(out, this.walkFunction(target.fn, this.bind(target.fn, node.arguments, env, target.env)));
    }
    this.callbacks(node, env, out);
  }

  /** Functions handed to library code (`items.map(toDto)`, `db.transaction(work)`) run too. */
  protected callbacks(node: ts.CallExpression, env: Env, out: Effects): void {
    for (const arg of node.arguments) {
      const e = skipOuter(arg);
      if (!ts.isIdentifier(e) && !ts.isPropertyAccessExpression(e)) continue;
      for (const target of this.functionsOf(e, env)) merge(out, this.walkFunction(target.fn, target.env));
    }
  }

  protected construct(node: ts.NewExpression, env: Env, out: Effects): void {
    const symbol = this.resolveAlias(
      this.checker.getSymbolAtLocation(
        ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression,
      ),
    );
    const decl = symbol?.declarations?.[0];
    if (decl && decl.getSourceFile().fileName.includes('/@hapi/boom/') && symbol?.name === 'Boom') {
      const options = node.arguments?.[1];
      if (options) this.record(options, options, env, node, out, [['statusCode'], ['data', 'code']]);
      return;
    }
    const signature = this.checker.getResolvedSignature(node);
    const ctor = signature?.declaration;
    if (ctor && ts.isConstructorDeclaration(ctor) && this.isProject(ctor.getSourceFile())) {
      merge(
        out,
        this.walkFunction(ctor, this.bind(ctor, node.arguments ?? ts.factory.createNodeArray(), env, Env.empty)),
      );
    }
  }

  protected boomFactory(node: ts.CallExpression): number | undefined {
    if (!ts.isPropertyAccessExpression(node.expression)) return undefined;
    const status = BOOM_FACTORIES[node.expression.name.text];
    if (status === undefined) return undefined;
    const decl = this.checker.getResolvedSignature(node)?.declaration;
    return decl && decl.getSourceFile().fileName.includes('/@hapi/boom/') ? status : undefined;
  }

  /** Records an error factory call: status and code, each possibly several values. */
  protected record(
    statusExpr: ts.Expression | undefined,
    codeExpr: ts.Expression | undefined,
    env: Env,
    site: ts.Node,
    out: Effects,
    paths?: [string[], string[]],
  ): void {
    if (!statusExpr || !codeExpr) return;
    // `cond ? 503 : 502` with `cond ? 'a' : 'b'`: the branches pair up.
    const s = skipOuter(statusExpr);
    const c = skipOuter(codeExpr);
    if (
      !paths &&
      ts.isConditionalExpression(s) &&
      ts.isConditionalExpression(c) &&
      s.condition.getText() === c.condition.getText()
    ) {
      this.record(s.whenTrue, c.whenTrue, env, site, out);
      this.record(s.whenFalse, c.whenFalse, env, site, out);
      return;
    }
    const statuses = this.evaluate(statusExpr, env, paths?.[0] ?? [], 0, true);
    const codes = this.evaluate(codeExpr, env, paths?.[1] ?? [], 0, true);
    const statusList = [...statuses.lits].filter((v): v is number => typeof v === 'number');
    const codeList = [...codes.lits].filter((v): v is string => typeof v === 'string');
    if (statuses.unknown || !statusList.length) {
      this.addUnresolved(out, null, codes.known ? codeList.join('|') : null, site, (paths ? statusExpr : s).getText());
      return;
    }
    for (const status of statusList) {
      for (const code of codeList) this.addError(out, status, code);
      if (codes.unknown || !codeList.length) this.addUnresolved(out, status, null, site, c.getText());
    }
  }

  protected addError(out: Effects, status: number, code: string | null): void {
    const c = code ?? defaultErrorCode(status);
    out.errors.set(`${status} ${c}`, { status, code: c });
  }

  protected addUnresolved(
    out: Effects,
    status: number | null,
    code: string | null,
    site: ts.Node,
    expression: string,
  ): void {
    const entry: UnresolvedError = {
      status,
      code,
      file: this.rel(site),
      expression: expression.replace(/\s+/g, ' ').slice(0, 200),
    };
    out.unresolved.set(JSON.stringify(entry), entry);
  }
}
