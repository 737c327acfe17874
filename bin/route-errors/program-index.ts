/**
 * The program's project files and the indexes built over them once (call sites by callee, members
 * by name), shared by every later stage of the walk.
 */
import { relative } from 'node:path';
import ts from 'typescript';
import { skipOuter, type FunctionNode } from './values.js';

export type Implementation = { fn: FunctionNode; container: ts.ClassLikeDeclaration | ts.ObjectLiteralExpression };

export class ProgramIndex {
  protected readonly checker: ts.TypeChecker;
  protected readonly files: ts.SourceFile[];
  private readonly symbolIds = new Map<ts.Symbol, number>();
  private readonly nodeIds = new Map<ts.Node, number>();
  private implIndex: Map<string, Implementation[]> | null = null;
  private callIndex: Map<ts.Symbol, ts.CallExpression[]> | null = null;

  constructor(
    readonly program: ts.Program,
    readonly root: string,
  ) {
    this.checker = program.getTypeChecker();
    this.files = program.getSourceFiles().filter((f) => this.isProject(f));
  }

  protected isProject(file: ts.SourceFile): boolean {
    return (
      !file.isDeclarationFile && file.fileName.startsWith(this.root + '/') && !file.fileName.includes('/node_modules/')
    );
  }

  protected rel(node: ts.Node): string {
    return relative(this.root, node.getSourceFile().fileName);
  }

  protected nodeKey(node: ts.Node): string {
    let id = this.nodeIds.get(node);
    if (id === undefined) {
      id = this.nodeIds.size + 1;
      this.nodeIds.set(node, id);
    }
    return `n${id}`;
  }

  protected symbolKey(symbol: ts.Symbol): string {
    let id = this.symbolIds.get(symbol);
    if (id === undefined) {
      id = this.symbolIds.size + 1;
      this.symbolIds.set(symbol, id);
    }
    return `s${id}`;
  }

  /** Calls of a function kept in a variable or declared by name (route factories are). */
  protected callSitesOf(fn: FunctionNode): ts.CallExpression[] {
    const symbol = this.nameSymbolOf(fn);
    if (!symbol) return [];
    if (!this.callIndex) {
      this.callIndex = new Map();
      for (const file of this.files) {
        const visit = (node: ts.Node): void => {
          if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
            const s = this.resolveAlias(this.checker.getSymbolAtLocation(node.expression));
            if (s) this.callIndex!.set(s, [...(this.callIndex!.get(s) ?? []), node]);
          }
          ts.forEachChild(node, visit);
        };
        visit(file);
      }
    }
    return this.callIndex.get(symbol) ?? [];
  }

  protected nameSymbolOf(fn: FunctionNode): ts.Symbol | undefined {
    if (ts.isFunctionDeclaration(fn) && fn.name) return this.checker.getSymbolAtLocation(fn.name);
    const parent = fn.parent;
    if (
      (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) &&
      ts.isVariableDeclaration(parent) &&
      ts.isIdentifier(parent.name)
    ) {
      return this.checker.getSymbolAtLocation(parent.name);
    }
    return undefined;
  }

  protected implementationsNamed(name: string): Implementation[] {
    if (!this.implIndex) {
      this.implIndex = new Map();
      const add = (n: string, fn: FunctionNode, container: ts.ClassLikeDeclaration | ts.ObjectLiteralExpression) => {
        this.implIndex!.set(n, [...(this.implIndex!.get(n) ?? []), { fn, container }]);
      };
      for (const file of this.files) {
        const visit = (node: ts.Node): void => {
          if (ts.isClassLike(node) || ts.isObjectLiteralExpression(node)) {
            const members: readonly ts.Node[] = ts.isObjectLiteralExpression(node) ? node.properties : node.members;
            for (const m of members) {
              const n = (m as ts.NamedDeclaration).name;
              const key = n && (ts.isIdentifier(n) || ts.isStringLiteral(n)) ? n.text : undefined;
              if (!key) continue;
              if ((ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m)) && m.body) add(key, m, node);
              else if ((ts.isPropertyAssignment(m) || ts.isPropertyDeclaration(m)) && m.initializer) {
                const init = skipOuter(m.initializer);
                if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) add(key, init, node);
              }
            }
          }
          ts.forEachChild(node, visit);
        };
        visit(file);
      }
    }
    return this.implIndex.get(name) ?? [];
  }

  /** The variable or parameter an identifier reads (also in `{ id }` shorthand). */
  protected valueSymbol(id: ts.Identifier): ts.Symbol | undefined {
    if (ts.isShorthandPropertyAssignment(id.parent) && id.parent.name === id)
      return this.checker.getShorthandAssignmentValueSymbol(id.parent);
    return this.checker.getSymbolAtLocation(id);
  }

  protected resolveAlias(symbol: ts.Symbol | undefined): ts.Symbol | undefined {
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) return this.checker.getAliasedSymbol(symbol);
    return symbol;
  }
}
