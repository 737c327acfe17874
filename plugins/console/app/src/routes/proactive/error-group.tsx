import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useMe } from '../../queries/session';
import { errorGroupQuery, proactiveKeys, type ErrorGroup, type ErrorGroupDetail } from '../../queries/proactive';
import { Button, ErrorState, LoadingState, TextField, useFormat, useToast } from '../../ui';
import { ActionError, StatusBadge, TrendChart } from './parts';
import './proactive.css';

type Frame = ErrorGroupDetail['frames'][number];
type Event = ErrorGroupDetail['events'][number];

/** /error-groups/{id}: what the error is, where it is thrown (symbolicated frames), its trend and releases, and what to do with it. */
export default function ErrorGroupPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const detail = useQuery(errorGroupQuery(id));
  // The trend's hours end at the time the page read it.
  const [at] = useState(() => Date.now());
  if (detail.isPending) return <LoadingState />;
  if (detail.isError) return <ErrorState error={detail.error} retry={() => void detail.refetch()} />;
  const d = detail.data;
  const g = d.group;
  // The schema leaves `group` optional; the service always answers it.
  if (!g) return <ErrorState error={new Error(t('proactive.group.missing'))} retry={() => void detail.refetch()} />;
  return (
    <div className="stack">
      <Link to="/error-groups">{t('proactive.group.back')}</Link>
      <div className="spread">
        <h1 className="pa-break">{g.title}</h1>
        <StatusBadge group={g} />
      </div>
      <Facts detail={d} group={g} />
      <Actions detail={d} group={g} />
      <section className="card stack" aria-labelledby="pa-trend">
        <h2 id="pa-trend">{t('proactive.group.activity')}</h2>
        <TrendChart group={g} at={at} />
      </section>
      <Frames detail={d} />
      <Releases detail={d} />
      <Events events={d.events} />
    </div>
  );
}

function Facts({ detail, group: g }: { detail: ErrorGroupDetail; group: ErrorGroup }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <section className="card stack" aria-labelledby="pa-facts">
      <h2 id="pa-facts">{t('proactive.group.facts')}</h2>
      <dl className="pa-facts">
        <dt>{t('proactive.group.type')}</dt>
        <dd>
          <code>{g.type}</code>
        </dd>
        <dt>{t('proactive.group.message')}</dt>
        <dd>
          <code>{detail.normalized_message}</code>
        </dd>
        <dt>{t('proactive.groups.users')}</dt>
        <dd>
          {t('proactive.group.usersValue', { total: fmt.number(g.affected_users), day: fmt.number(g.users_24h) })}
        </dd>
        <dt>{t('proactive.group.eventCount')}</dt>
        <dd>{t('proactive.group.usersValue', { total: fmt.number(g.event_count), day: fmt.number(g.events_24h) })}</dd>
        <dt>{t('proactive.group.firstSeen')}</dt>
        <dd>{fmt.dateTime(g.first_seen)}</dd>
        <dt>{t('proactive.groups.lastSeen')}</dt>
        <dd>{fmt.dateTime(g.last_seen)}</dd>
        <dt>{t('proactive.group.sources')}</dt>
        <dd>{g.sources.map((s) => t(`proactive.sources.${s}`)).join(', ')}</dd>
        {detail.environments.length > 0 && (
          <>
            <dt>{t('proactive.group.environments')}</dt>
            <dd>{detail.environments.join(', ')}</dd>
          </>
        )}
        {g.trigger && (
          <>
            <dt>{t('proactive.group.trigger')}</dt>
            <dd>{t(`proactive.triggers.${g.trigger}`)}</dd>
          </>
        )}
        {g.held_reason && (
          <>
            <dt>{t('proactive.group.held')}</dt>
            <dd>{t(`proactive.held.${g.held_reason}`, { defaultValue: g.held_reason })}</dd>
          </>
        )}
        {g.resolved_at && (
          <>
            <dt>{t('proactive.group.resolved')}</dt>
            <dd>
              {fmt.dateTime(g.resolved_at)}
              {g.resolved_in_release ? ` · ${g.resolved_in_release}` : ''}
            </dd>
          </>
        )}
        {g.regressed_at && (
          <>
            <dt>{t('proactive.groups.regressed')}</dt>
            <dd>{fmt.dateTime(g.regressed_at)}</dd>
          </>
        )}
        {g.ticket && (
          <>
            <dt>{t('proactive.group.ticket')}</dt>
            <dd>
              <Link to={`/tickets/${g.ticket.id}`}>{g.ticket.subject ?? g.ticket.id}</Link> ({g.ticket.state})
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** Ignore, watch again, resolve (in a release) and open a ticket, as the API's capabilities allow; refusals explained. */
function Actions({ detail, group }: { detail: ErrorGroupDetail; group: ErrorGroup }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const me = useMe();
  const id = group.id;
  const [release, setRelease] = useState('');
  const took = (d: ErrorGroupDetail) => {
    client.setQueryData(proactiveKeys.group(id), d);
    void client.invalidateQueries({ queryKey: proactiveKeys.groupLists() });
  };
  const act = useMutation({
    mutationFn: (
      action: 'ignore' | 'unignore' | 'resolve' | 'ticket',
    ): Promise<{ detail: ErrorGroupDetail; message: string }> => {
      const path = { params: { path: { id } } };
      if (action === 'ignore') {
        return data(api.POST('/v1/error-groups/{id}/ignore', path)).then((d) => ({
          detail: d,
          message: t('proactive.group.ignored'),
        }));
      }
      if (action === 'unignore') {
        return data(api.POST('/v1/error-groups/{id}/unignore', path)).then((d) => ({
          detail: d,
          message: t('proactive.group.watchingAgain'),
        }));
      }
      if (action === 'resolve') {
        return data(
          api.POST('/v1/error-groups/{id}/resolve', {
            ...path,
            body: release.trim() ? { release: release.trim() } : {},
          }),
        ).then((d) => ({ detail: d, message: t('proactive.group.resolvedToast') }));
      }
      return data(api.POST('/v1/error-groups/{id}/ticket', path)).then((r) => ({
        detail: r.detail,
        message: r.outcome === 'opened' ? t('proactive.group.opened') : t('proactive.group.linked'),
      }));
    },
    onSuccess: (r) => {
      took(r.detail);
      toast.success(r.message);
    },
    // A 402 holds the group with its reason: read it again so the page shows it.
    onError: () => void client.invalidateQueries({ queryKey: proactiveKeys.group(id) }),
  });
  const caps = detail.capabilities;
  const busy = (action: typeof act.variables) => act.isPending && act.variables === action;
  const resolve = (e: FormEvent) => {
    e.preventDefault();
    act.mutate('resolve');
  };
  // Client viewers read; the actions are the team's (owner, admin, reviewer).
  if (me.data?.user.role === 'client_viewer') return null;
  if (!caps.ignore && !caps.unignore && !caps.resolve && !caps.open_ticket) return null;
  return (
    <section className="card stack" aria-labelledby="pa-actions">
      <h2 id="pa-actions">{t('proactive.group.actions')}</h2>
      <ActionError error={act.error} />
      <div className="row">
        {caps.open_ticket && (
          <Button variant="primary" pending={busy('ticket')} onClick={() => act.mutate('ticket')}>
            {t('proactive.group.openTicket')}
          </Button>
        )}
        {caps.ignore && (
          <Button pending={busy('ignore')} onClick={() => act.mutate('ignore')}>
            {t('proactive.group.ignore')}
          </Button>
        )}
        {caps.unignore && (
          <Button pending={busy('unignore')} onClick={() => act.mutate('unignore')}>
            {t('proactive.group.unignore')}
          </Button>
        )}
      </div>
      {caps.resolve && (
        <form className="row pa-inline" onSubmit={resolve}>
          <TextField
            label={t('proactive.group.resolveRelease')}
            hint={t('proactive.group.resolveHint')}
            value={release}
            onChange={(e) => setRelease(e.target.value)}
          />
          <Button type="submit" pending={busy('resolve')}>
            {t('proactive.group.resolve')}
          </Button>
        </form>
      )}
    </section>
  );
}

const where = (f: { file: string | null; line: number | null; column: number | null }) =>
  `${f.file ?? '?'}${f.line != null ? `:${f.line}` : ''}${f.column != null ? `:${f.column}` : ''}`;

/** The stack, innermost first: the original file:line where a source map applied, the bundle's position under it. */
function Frames({ detail }: { detail: ErrorGroupDetail }) {
  const { t } = useTranslation();
  return (
    <section className="card stack" aria-labelledby="pa-frames">
      <div className="spread">
        <h2 id="pa-frames">{t('proactive.group.frames')}</h2>
        <span className="muted">
          {detail.symbolicated ? t('proactive.group.symbolicated') : t('proactive.group.notSymbolicated')}
        </span>
      </div>
      {detail.frames.length === 0 ? (
        <p className="muted">{t('proactive.group.noFrames')}</p>
      ) : (
        <ol className="pa-frames">
          {detail.frames.map((f: Frame, i) => (
            <li key={i} className={f.in_app ? 'pa-frame pa-in-app' : 'pa-frame'}>
              <code className="pa-break">
                {f.function ?? t('proactive.group.anonymous')} <span className="muted">{t('proactive.group.at')}</span>{' '}
                {where(f)}
              </code>
              {!f.in_app && <span className="badge">{t('proactive.group.library')}</span>}
              {f.generated && (
                <div className="muted pa-break">
                  {t('proactive.group.generated', { where: where(f.generated), fn: f.generated.function ?? '?' })}
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
      {detail.sample_stack && (
        <details>
          <summary>{t('proactive.group.rawStack')}</summary>
          <pre className="pre-block">{detail.sample_stack}</pre>
        </details>
      )}
    </section>
  );
}

function Releases({ detail }: { detail: ErrorGroupDetail }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (detail.releases.length === 0) return null;
  return (
    <section className="card stack" aria-labelledby="pa-releases">
      <h2 id="pa-releases">{t('proactive.group.releases')}</h2>
      <div className="table-wrap" role="region" aria-labelledby="pa-releases" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('proactive.group.release')}</th>
              <th scope="col">{t('proactive.groups.status')}</th>
              <th scope="col">{t('proactive.group.eventCount')}</th>
              <th scope="col">{t('proactive.groups.users')}</th>
              <th scope="col">{t('proactive.groups.lastSeen')}</th>
            </tr>
          </thead>
          <tbody>
            {detail.releases.map((r) => (
              <tr key={r.release ?? '-'}>
                <th scope="row">{r.release ?? t('proactive.group.noRelease')}</th>
                <td>{t(`proactive.statuses.${r.status}`, { defaultValue: r.status })}</td>
                <td>{fmt.number(r.event_count)}</td>
                <td>{fmt.number(r.affected_users)}</td>
                <td>{fmt.dateTime(r.last_seen)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The latest events as stored: personal data masked by the service before it was kept. */
function Events({ events }: { events: Event[] }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  return (
    <section className="card stack" aria-labelledby="pa-events">
      <h2 id="pa-events">{t('proactive.group.samples')}</h2>
      <p className="muted">{t('proactive.group.samplesIntro')}</p>
      {events.map((e) => (
        <details key={e.id} className="pa-event">
          <summary>
            {fmt.dateTime(e.occurred_at)} · {t(`proactive.sources.${e.source}`)} ·{' '}
            <span className="pa-break">{e.message}</span>
          </summary>
          <dl className="pa-facts">
            <dt>{t('proactive.group.level')}</dt>
            <dd>{e.level}</dd>
            {e.url && (
              <>
                <dt>{t('proactive.group.url')}</dt>
                <dd>{e.url}</dd>
              </>
            )}
            {e.release && (
              <>
                <dt>{t('proactive.group.release')}</dt>
                <dd>{e.release}</dd>
              </>
            )}
            {e.environment && (
              <>
                <dt>{t('proactive.group.environment')}</dt>
                <dd>{e.environment}</dd>
              </>
            )}
            {e.user && (
              <>
                <dt>{t('proactive.group.user')}</dt>
                <dd>
                  <code>{JSON.stringify(e.user)}</code>
                </dd>
              </>
            )}
            {e.browser && (
              <>
                <dt>{t('proactive.group.browser')}</dt>
                <dd>
                  <code>{JSON.stringify(e.browser)}</code>
                </dd>
              </>
            )}
            <dt>{t('proactive.group.symbolicatedEvent')}</dt>
            <dd>{e.symbolicated ? t('proactive.yes') : t('proactive.no')}</dd>
          </dl>
        </details>
      ))}
    </section>
  );
}
