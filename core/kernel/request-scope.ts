import type { Request, Server } from '@hapi/hapi';
import { asValue } from 'awilix';
import { principalOf } from '../http/auth.js';
import type { Container, Cradle } from './cradle.js';
import { KEYS } from './keys.js';

declare module '@hapi/hapi' {
  interface RequestApplicationState {
    /** The request's container scope: holds `request` and, after auth, `principal`. */
    scope: RequestScope;
  }
}

/**
 * A request's container scope, made on first use. Most requests resolve only singletons, and an
 * awilix scope is dear beyond its allocation: its container object is a literal with a getter, so
 * V8 gives every scope a hidden class of its own, in old space, which keeps whatever the scope
 * reaches (the request, its answer) alive through every scavenge until the next full GC. Made for
 * each request, that promoted a page's whole request to the old generation (docs/decisions.md).
 */
export class RequestScope {
  private made: Container | null = null;

  constructor(
    private readonly root: Container,
    private readonly request: Request,
  ) {}

  /** The awilix scope: `request`, and `principal` once the request is authenticated. */
  get container(): Container {
    if (!this.made) {
      this.made = this.root.createScope();
      this.made.register({
        [KEYS.request]: asValue(this.request),
        [KEYS.principal]: asValue(principalOf(this.request)),
      });
    }
    return this.made;
  }

  resolve<K extends keyof Cradle>(name: K): Cradle[K] {
    return this.container.resolve(name);
  }

  /** After authentication: a scope made before it learns the principal. */
  authenticated(): void {
    this.made?.register(KEYS.principal, asValue(principalOf(this.request)));
  }
}

export function registerRequestScope(server: Server, container: Container): void {
  server.ext('onRequest', (request, h) => {
    request.app.scope = new RequestScope(container, request);
    return h.continue;
  });
  server.ext('onPostAuth', (request, h) => {
    request.app.scope.authenticated();
    return h.continue;
  });
  server.ext('onPreResponse', (request, h) => {
    const res = request.response as {
      header?: (k: string, v: string) => unknown;
      output?: { headers: Record<string, string> };
    };
    if (res?.output) res.output.headers['X-Request-Id'] = request.info.id;
    else res?.header?.('X-Request-Id', request.info.id);
    return h.continue;
  });
}
