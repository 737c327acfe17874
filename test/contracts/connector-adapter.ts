/**
 * Contract kit of ConnectorAdapter. Every log-source adapter runs it in its own test:
 *
 *   await runConnectorAdapterContract(t, { name: 'connector-endpoint', kind: 'endpoint', create, settings: { valid } , push });
 */
import Joi from 'joi';
import {
  CONNECTOR_KINDS,
  CONNECTOR_SECRET_NAMES,
  CONNECTOR_TEST_CODES,
  EVENT_LEVELS,
  SETTINGS_ISSUE_CODES,
  isAdapterError,
  type ConnectorAdapter,
  type ConnectorKind,
  type ConnectorSecretName,
  type ConnectorSettings,
  type SettingsContext,
  type SettingsIssueCode,
} from '../../core/contracts/index.js';
import {
  describeError,
  forgeriesOf,
  problems,
  resolveLazy,
  runCommonCases,
  shapes,
  withAdapter,
  type ContractTest,
  type Forgery,
  type KitOptions,
  type Lazy,
} from './common.js';
import type { WebhookDelivery } from '../../core/contracts/index.js';

/** The settings the service hands an adapter: `config` and the decrypted `secrets` of connector con_1 (`more` overrides). */
export function connectorSettings(
  config: Record<string, unknown>,
  secrets: ConnectorSettings['secrets'],
  more: Partial<ConnectorSettings> = {},
): ConnectorSettings {
  return { connectorId: 'con_1', workspaceId: 'ws_1', config, secrets, lastDeliveryAt: null, ...more };
}

/** Wrong settings `validateSettings` must refuse, with the issue it must name. */
export interface InvalidSettingsCase {
  name: string;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  context?: SettingsContext;
  code: SettingsIssueCode;
  field: string;
}

/** An issue written `code@field`, as the API's error list reads (`missing_field@secrets.api_key`). */
export type SettingsIssue = `${SettingsIssueCode}@${string}`;

/**
 * One wrong-settings case, `issue` written `code@field` as the API's error list reads, e.g.
 * `refusedSettings('no api key', 'missing_field@secrets.api_key', {}, { application_key: 'a' })`.
 */
export function refusedSettings(
  name: string,
  issue: SettingsIssue,
  config: Record<string, unknown>,
  secrets: Record<string, string> = {},
  context?: SettingsContext,
): InvalidSettingsCase {
  const at = issue.indexOf('@');
  const code = issue.slice(0, at) as SettingsIssueCode;
  return { name, config, secrets, ...(context ? { context } : {}), code, field: issue.slice(at + 1) };
}

export interface ConnectorAdapterKitOptions extends KitOptions<ConnectorAdapter> {
  kind: ConnectorKind;
  settings: {
    /** Settings `validateSettings` accepts. */
    valid: { config: Record<string, unknown>; secrets: Record<string, string>; context?: SettingsContext };
    /** Wrong settings, each with an issue it must produce (`refusedSettings` writes one a line). */
    invalid?: InvalidSettingsCase[];
  };
  /** Test cases: settings to test and the `ok` expected (a peer must answer for true/false). */
  test?: Array<{ name: string; settings: Lazy<ConnectorSettings>; ok: boolean | null; code?: string }>;
  /** Poll case (polling adapters): settings a peer answers for. */
  poll?: { settings: Lazy<ConnectorSettings>; minEvents?: number };
  /** Push cases (push adapters): a signed push and, optionally, forged ones (headers stripped and garbled are added). */
  push?: {
    settings: Lazy<ConnectorSettings>;
    signed: Lazy<WebhookDelivery>;
    forged?: Array<Forgery>;
    /** Also refuse the body changed by one byte (true for an HMAC over the body; false for a bearer token). */
    bodySigned?: boolean;
  };
}

const frameSchema = Joi.object({
  file: shapes.nonEmpty.required(),
  function: Joi.string(),
  line: Joi.number().integer().min(0),
  column: Joi.number().integer().min(0),
  in_app: Joi.boolean(),
});

const normalizedEventSchema = Joi.object({
  external_id: shapes.nonEmpty,
  type: shapes.nonEmpty.required(),
  message: Joi.string().allow('').required(),
  level: Joi.string()
    .valid(...EVENT_LEVELS)
    .required(),
  stack: Joi.string(),
  frames: Joi.array().items(frameSchema),
  url: Joi.string(),
  release: shapes.nonEmpty,
  environment: shapes.nonEmpty,
  user: Joi.object({ id: Joi.string(), email: Joi.string(), username: Joi.string(), ip_address: Joi.string() }).min(1),
  occurred_at: shapes.isoDateTime.required(),
  fingerprint: shapes.nonEmpty,
  browser: Joi.object({ user_agent: Joi.string(), name: Joi.string(), version: Joi.string(), os: Joi.string() }),
  // EventContext: what a Sentry event carries beyond its error.
  context: Joi.object({
    tags: Joi.object().pattern(Joi.string(), Joi.string().allow('')),
    breadcrumbs: Joi.array().items(
      Joi.object({
        timestamp: shapes.isoDateTime,
        type: Joi.string(),
        category: Joi.string(),
        level: Joi.string(),
        message: Joi.string(),
        data: Joi.object(),
      }),
    ),
    sdk: Joi.object({ name: shapes.nonEmpty.required(), version: Joi.string() }),
    debug_ids: Joi.object().pattern(Joi.string(), shapes.nonEmpty),
  }),
});

const issueSchema = Joi.object({
  code: Joi.string()
    .valid(...SETTINGS_ISSUE_CODES)
    .required(),
  field: Joi.string()
    .pattern(/^(config|secrets)(\.[A-Za-z0-9_]+)+$/)
    .required(),
  message: shapes.nonEmpty.required(),
});

const testResultSchema = Joi.object({
  ok: Joi.boolean().allow(null).required(),
  code: Joi.string()
    .valid(...CONNECTOR_TEST_CODES)
    .required(),
  message: Joi.string().required(),
  details: shapes.record.required(),
});

const pollResultSchema = Joi.object({
  events: Joi.array().items(normalizedEventSchema).required(),
  cursor: Joi.string().allow(null).required(),
  nextPollInMs: Joi.number().integer().min(0).required(),
});

/** Problems of one NormalizedEvent. */
export function checkNormalizedEvent(event: unknown): string[] {
  return problems(normalizedEventSchema, event);
}

/** Problems of a list of SettingsIssues. */
export function checkSettingsIssues(issues: unknown): string[] {
  return problems(Joi.array().items(issueSchema).required(), issues);
}

/** Problems of a ConnectorTestResult, including how `ok` and `code` go together. */
export function checkConnectorTestResult(result: unknown): string[] {
  const found = problems(testResultSchema, result);
  if (found.length) return found;
  const { ok, code } = result as { ok: boolean | null; code: string };
  const pushOnly = code === 'awaiting_delivery' || code === 'receiving';
  if (ok === null && !pushOnly) found.push(`code: ok null goes with awaiting_delivery or receiving, not ${code}`);
  if (ok === true && code !== 'ok') found.push(`code: ok true goes with code ok, not ${code}`);
  if (ok === false && (code === 'ok' || pushOnly)) found.push(`code: ok false cannot have code ${code}`);
  if (pushOnly && !('last_delivery_at' in (result as { details: object }).details))
    found.push('details: last_delivery_at missing');
  return found;
}

/** Problems of a PollResult. */
export function checkPollResult(result: unknown): string[] {
  return problems(pollResultSchema, result);
}

/** Drives a ConnectorAdapter through the cases every log source must pass. */
export async function runConnectorAdapterContract(t: ContractTest, opts: ConnectorAdapterKitOptions): Promise<void> {
  await runCommonCases(t, 'connector', opts);

  await t.test(`kind is ${opts.kind} and secrets are spec names`, async (t) => {
    await withAdapter(opts, (a) => {
      t.equal(a.kind, opts.kind, 'kind');
      t.ok(CONNECTOR_KINDS.includes(a.kind), 'kind is a spec connector kind');
      t.ok(
        Array.isArray(a.secretNames) &&
          a.secretNames.every((n: ConnectorSecretName) => CONNECTOR_SECRET_NAMES.includes(n)),
        `secretNames: ${String(a.secretNames)}`,
      );
    });
  });

  await t.test(
    'polls goes with poll(); verifyPush with normalizePush; events arrive one way or the other',
    async (t) => {
      await withAdapter(opts, (a) => {
        t.equal(typeof a.polls, 'boolean', 'polls is a boolean');
        t.equal(a.polls, typeof a.poll === 'function', 'poll() exists exactly when polls is true');
        t.equal(
          typeof a.verifyPush === 'function',
          typeof a.normalizePush === 'function',
          'verifyPush and normalizePush come together',
        );
        t.ok(a.polls || typeof a.verifyPush === 'function', 'the adapter polls or takes pushes');
      });
    },
  );

  await t.test('valid settings give no issue', async (t) => {
    await withAdapter(opts, (a) => {
      const v = opts.settings.valid;
      t.same(a.validateSettings(v.config, v.secrets, v.context), [], 'no issues');
    });
  });

  for (const bad of opts.settings.invalid ?? []) {
    await t.test(`invalid settings are reported: ${bad.name}`, async (t) => {
      await withAdapter(opts, (a) => {
        const issues = a.validateSettings(bad.config, bad.secrets, bad.context);
        t.same(checkSettingsIssues(issues), [], 'issues are well formed');
        t.ok(
          issues.some((i) => i.code === bad.code && i.field === bad.field),
          `an issue ${bad.code} on ${bad.field} (got ${issues.map((i) => `${i.code}@${i.field}`).join(', ') || 'none'})`,
        );
      });
    });
  }

  await t.test('garbage settings give well-formed issues, never an exception', async (t) => {
    await withAdapter(opts, (a) => {
      const garbage = { url: { not: 'a url' }, region: 42, role_arn: ['x'], organization: null, project: true };
      try {
        t.same(checkSettingsIssues(a.validateSettings(garbage, { token: '' })), [], 'issues are well formed');
      } catch (err) {
        t.fail(`validateSettings threw ${describeError(err)}`);
      }
    });
  });

  await t.test('a secret the kind does not take is an issue', async (t) => {
    await withAdapter(opts, (a) => {
      const foreign = CONNECTOR_SECRET_NAMES.find((n) => !a.secretNames.includes(n));
      if (!foreign) return void t.ok(true, 'the adapter takes every secret name');
      const v = opts.settings.valid;
      const issues = a.validateSettings(v.config, { ...v.secrets, [foreign]: 'kit-secret-value' }, v.context);
      t.ok(
        issues.some((i) => i.field === `secrets.${foreign}`),
        `an issue on secrets.${foreign}`,
      );
    });
  });

  for (const c of opts.test ?? []) {
    await t.test(`test() answers: ${c.name}`, async (t) => {
      await withAdapter(opts, async (a) => {
        const result = await a.test(await resolveLazy(c.settings));
        t.same(checkConnectorTestResult(result), [], 'ConnectorTestResult fits the contract');
        t.equal(result.ok, c.ok, 'ok');
        if (c.code) t.equal(result.code, c.code, 'code');
      });
    });
  }

  const poll = opts.poll;
  if (poll) {
    await t.test('poll() answers events, a cursor and the next interval', async (t) => {
      await withAdapter(opts, async (a) => {
        if (!a.poll) return void t.fail('poll() is missing');
        const result = await a.poll(await resolveLazy(poll.settings), null);
        t.same(checkPollResult(result), [], 'PollResult fits the contract');
        if (poll.minEvents !== undefined)
          t.ok(result.events.length >= poll.minEvents, `at least ${poll.minEvents} events`);
      });
    });
  }

  const push = opts.push;
  if (push) await runPushCases(t, opts, push);
}

async function runPushCases(
  t: ContractTest,
  opts: ConnectorAdapterKitOptions,
  push: NonNullable<ConnectorAdapterKitOptions['push']>,
): Promise<void> {
  await t.test('a signed push is verified and normalized', async (t) => {
    await withAdapter(opts, async (a) => {
      if (!a.verifyPush || !a.normalizePush) return void t.fail('verifyPush/normalizePush are missing');
      const settings = await resolveLazy(push.settings);
      const d = await resolveLazy(push.signed);
      t.equal(a.verifyPush(d.headers, d.rawBody, settings), true, 'verifyPush accepts it');
      const events = a.normalizePush(JSON.parse(d.rawBody.toString('utf8')) as unknown, settings);
      t.ok(Array.isArray(events) && events.length > 0, 'at least one event');
      events.forEach((e, i) => t.same(checkNormalizedEvent(e), [], `event ${i} fits NormalizedEvent`));
    });
  });

  await t.test('forged pushes are refused by verifyPush, without an exception', async (t) => {
    await withAdapter(opts, async (a) => {
      if (!a.verifyPush) return void t.fail('verifyPush is missing');
      const settings = await resolveLazy(push.settings);
      const forged = await forgeriesOf(await resolveLazy(push.signed), push.forged, { bodySigned: !!push.bodySigned });
      for (const [name, d] of forged) {
        try {
          t.equal(a.verifyPush(d.headers, d.rawBody, settings), false, name);
        } catch (err) {
          t.fail(`${name}: verifyPush threw ${describeError(err)}`);
        }
      }
    });
  });

  await t.test('a body it cannot read gives no event or a PayloadError', async (t) => {
    await withAdapter(opts, async (a) => {
      if (!a.normalizePush) return void t.fail('normalizePush is missing');
      const settings = await resolveLazy(push.settings);
      for (const body of [42, 'text', null, [], { kit: true }]) {
        try {
          const events = a.normalizePush(body, settings);
          const bad = events.flatMap((e) => checkNormalizedEvent(e));
          t.same(bad, [], `body ${JSON.stringify(body)}: only well-formed events`);
        } catch (err) {
          t.ok(isAdapterError(err, 'invalid_payload'), `body ${JSON.stringify(body)}: ${describeError(err)}`);
        }
      }
    });
  });
}
