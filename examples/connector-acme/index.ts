/**
 * A partner's log source, as a partner would ship it: "Acme Logs" pushes batches of log lines to
 * a webhook signed with `X-Acme-Signature: sha256=<hex HMAC of the raw body>` keyed with the
 * connector's client secret. Enable it with
 *
 *   "adapters": { "connector": ["connector-endpoint", "./examples/connector-acme/index.ts"] }
 *
 * It serves the `error_tracker` kind and passes the ConnectorAdapter contract kit
 * (examples/connector-acme/test/acme.test.ts).
 */
import Joi from 'joi';
import {
  AbstractConnectorAdapter,
  PayloadError,
  adapterModule,
  connectorAdapterOptionKeys,
  verifySha256Header,
  type ConnectorAdapterOptions,
  type ConnectorSecretName,
  type ConnectorSettings,
  type ConnectorTestResult,
  type NormalizedEvent,
  type RawHeaders,
} from '../../core/contracts/index.js';

export class AcmeConnectorAdapter extends AbstractConnectorAdapter<ConnectorAdapterOptions> {
  static override identifier = 'connector-acme';
  static override optionsSchema = Joi.object<ConnectorAdapterOptions>({ ...connectorAdapterOptionKeys });

  readonly kind = 'error_tracker' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['client_secret'];
  protected override readonly requiredConfig = ['project'];
  protected override readonly requiredSecrets: readonly ConnectorSecretName[] = ['client_secret'];

  test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    return Promise.resolve(this.pushOnlyTestResult(settings));
  }

  verifyPush(headers: RawHeaders, rawBody: Buffer, settings: ConnectorSettings): boolean {
    const secret = settings.secrets.client_secret;
    return !!secret && verifySha256Header(headers, 'x-acme-signature', secret, rawBody);
  }

  normalizePush(body: unknown): NormalizedEvent[] {
    if (!body || typeof body !== 'object' || !Array.isArray((body as { lines?: unknown }).lines))
      throw new PayloadError('an Acme delivery has lines[]');
    const out: NormalizedEvent[] = [];
    for (const line of (body as { lines: unknown[] }).lines) {
      if (!line || typeof line !== 'object') continue;
      const l = line as Record<string, unknown>;
      if (typeof l.text !== 'string' || (l.severity !== 'ERROR' && l.severity !== 'FATAL')) continue;
      const at = new Date(typeof l.ts === 'number' ? l.ts * 1000 : String(l.ts));
      out.push({
        ...(typeof l.id === 'string' && l.id ? { external_id: l.id } : {}),
        type: typeof l.logger === 'string' && l.logger ? l.logger : 'LogError',
        message: l.text.slice(0, 8000),
        level: l.severity === 'FATAL' ? 'fatal' : 'error',
        occurred_at: Number.isNaN(at.getTime()) ? new Date().toISOString() : at.toISOString(),
      });
    }
    return out;
  }
}

export default adapterModule('connector', AcmeConnectorAdapter);
