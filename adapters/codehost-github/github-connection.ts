/**
 * The GitHub App's connection: the app's JWT, installation tokens (cached until shortly before
 * expiry, minted once more when refused), REST and GraphQL calls; GithubCodeHost builds on it.
 */
import type { KeyObject } from 'node:crypto';
import {
  AbstractCodeHost,
  AdapterError,
  AdapterNotFoundError,
  isAdapterError,
  type CodeHostOptions,
  type RepoRef,
} from '../../core/contracts/index.js';
import { appJwt, InstallationTokenCache, readPrivateKey, type InstallationToken } from './app-auth.js';
import type { GhSchemas } from './github-json.js';
import { RestClient } from './rest-client.js';

export interface GithubCodeHostOptions extends CodeHostOptions {
  appId: string;
  /** The app's URL name: `https://github.com/apps/<appSlug>`. */
  appSlug: string;
  /** The app's private key (PEM; `\n` escapes are accepted). */
  privateKey: string;
  /** REST base; default https://api.github.com (GHES: https://host/api/v3). */
  baseUrl: string;
  /** Web base for install and sign-in pages; default https://github.com. */
  webUrl: string;
  requestTimeoutMs: number;
  maxDiffBytes: number;
}

/** A GraphQL answer: the query's data (shape T) or its errors. */
interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: Array<{ message?: string }>;
}

export const enc = encodeURIComponent;
export const encPath = (p: string) => p.split('/').map(enc).join('/');

export abstract class GithubConnection extends AbstractCodeHost<GithubCodeHostOptions> {
  private keyObject: KeyObject | null = null;
  private clientInstance: RestClient | null = null;
  readonly tokens = new InstallationTokenCache((id) => this.mintInstallationToken(id));

  protected get client(): RestClient {
    return (this.clientInstance ??= new RestClient(
      this.options.baseUrl,
      `patchwell-${this.options.appSlug}`,
      this.options.requestTimeoutMs,
    ));
  }

  protected get webUrl(): string {
    return this.options.webUrl.replace(/\/+$/, '');
  }

  protected jwt(): string {
    this.keyObject ??= readPrivateKey(this.options.privateKey);
    return appJwt(this.options.appId, this.keyObject);
  }

  protected app<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown) {
    return this.client.request<T>({ method, path, body, authorization: `Bearer ${this.jwt()}` });
  }

  protected async mintInstallationToken(
    installationId: string,
    scope?: { repositories: string[]; permissions: Record<string, string> },
  ): Promise<InstallationToken> {
    const { data } = await this.app<GhSchemas['installation-token']>(
      'POST',
      `/app/installations/${enc(installationId)}/access_tokens`,
      scope,
    );
    return { token: data.token, expiresAt: new Date(data.expires_at) };
  }

  /** A call with the installation token of `installationId`; a refused token is minted once more. */
  protected async inst<T = unknown>(
    installationId: string | null,
    req: {
      method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
      path: string;
      body?: unknown;
      query?: Record<string, string | number | undefined>;
      accept?: string;
    },
  ) {
    if (!installationId)
      throw new AdapterError(
        'no_installation',
        'codehost-github reaches repositories through an installation (RepoRef.installationId)',
      );
    const call = async () =>
      this.client.request<T>({ ...req, authorization: `token ${await this.tokens.get(installationId)}` });
    try {
      return await call();
    } catch (err) {
      if (!isAdapterError(err, 'unauthorized')) throw err;
      this.tokens.forget(installationId);
      return call();
    }
  }

  protected repoPath(ref: RepoRef, rest = ''): string {
    const [owner, name] = ref.fullName.split('/');
    if (!owner || !name) throw new AdapterNotFoundError(`repository ${ref.fullName} does not exist`);
    return `/repos/${enc(owner)}/${enc(name)}${rest}`;
  }

  /** Null for 404, the value otherwise. */
  protected async orNull<T>(p: Promise<T>): Promise<T | null> {
    try {
      return await p;
    } catch (err) {
      if (isAdapterError(err, 'not_found')) return null;
      throw err;
    }
  }

  /** A GraphQL query or mutation whose data has the shape T; empty when GitHub answers without data. */
  protected async graphql<T extends object>(
    installationId: string | null,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<Partial<T>> {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    const url = /\/api\/v3$/.test(base) ? base.replace(/\/api\/v3$/, '/api/graphql') : `${base}/graphql`;
    const { data } = await this.inst<GraphqlAnswer<T>>(installationId, {
      method: 'POST',
      path: url,
      body: { query, variables },
    });
    const errors = Array.isArray(data.errors) ? data.errors : [];
    if (errors.length) throw new AdapterError('host_error', `GitHub GraphQL: ${errors[0]?.message ?? 'error'}`);
    return data.data ?? {};
  }
}
