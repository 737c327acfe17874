import { acrossOrgs } from '../../../core/data/statements.js';

// The version of a release name, padded to four numbers ('shop@v2.1' → {2,1,0,0}); null for a name
// that is no version. `rel` is the column to read.
const versionOf = (rel: string) =>
  `(select (string_to_array(m[1], '.')::numeric[] || '{0,0,0,0}'::numeric[])[1:4] from regexp_match(btrim(${rel}), '^(?:[\\w.-]+@)?v?(\\d+(?:\\.\\d+){0,3})(?:[-+].*)?$') as m where m is not null)`;

/**
 * A whole ingest batch as one statement (atomic without BEGIN and COMMIT, one round trip),
 * prepared once per connection. Values: now, the batch's groups (JSON, one row per workspace and
 * fingerprint), its events (JSON), the connectors to touch.
 *
 * - `k`: each group as it is now, or the new id a group first seen in this batch will get.
 * - `e`: the events, duplicates by connector and external id skipped.
 * - `u`, `ru`, `r`, `h`: the affected users (per group, and per group and release), releases and
 *   hours of the fresh events.
 * - `reg`: the resolved groups a fresh event brings back (docs/proactive.md, regression): one
 *   from before the resolve, or from a release older than resolved_in_release, does not.
 *   Releases order by their versions; names that are no version by when each was first seen.
 * - `ch`: the fresh events per connector and hour received (the connector's events_24h).
 * - `b`: per group, the fresh events' counts; `g` inserts or updates each group once with them
 *   and applies the trigger rules; `o` announces every trigger that fired.
 *
 * Groups are locked in one order (workspace, fingerprint), so two batches never deadlock. Two
 * batches that see the same new fingerprint at once both try to insert it: the second one's
 * events then point at an id that was never inserted, the foreign key refuses the statement, and
 * GroupWriter runs it again (it finds the group then).
 */
export const FLUSH = acrossOrgs(
  'an ingest batch holds events of many organizations',
  `
with x as (
  select * from json_to_recordset($2::json) as x(id text, org_id text, workspace_id text, fingerprint text, type text, title text, normalized_message text,
    sample_stack text, frames jsonb, symbolicated boolean, noise boolean, first_seen timestamptz, critical boolean, ws_enabled boolean, ws_threshold int, outbox_id text)
), k as (
  -- lateral: one index lookup per group, whatever the planner guesses of the batch's size
  select x.workspace_id, x.fingerprint, coalesce(eg.id, x.id) as group_id, eg.status, eg.resolved_at, eg.resolved_in_release
  from x left join lateral (select eg.id, eg.status, eg.resolved_at, eg.resolved_in_release from error_groups eg
    where eg.workspace_id = x.workspace_id and eg.fingerprint = x.fingerprint limit 1) eg on true
), v as (
  select v.*, k.group_id
  from json_to_recordset($3::json) as v(id text, org_id text, workspace_id text, fingerprint text, connector_id text, source text, external_id text, type text, level text,
    message text, stack text, frames jsonb, symbolicated boolean, url text, browser jsonb, release text, environment text,
    "user" jsonb, user_key text, occurred_at timestamptz, context jsonb)
  join k on k.workspace_id = v.workspace_id and k.fingerprint = v.fingerprint
), e as (
  insert into error_events (id, org_id, workspace_id, group_id, connector_id, source, external_id, type, level, message, stack,
    frames, symbolicated, url, browser, release, environment, "user", user_key, occurred_at, context, received_at)
  select v.id, v.org_id, v.workspace_id, v.group_id, v.connector_id, v.source, v.external_id, v.type, v.level, v.message,
    v.stack, v.frames, v.symbolicated, v.url, v.browser, v.release, v.environment, v."user", v.user_key, v.occurred_at,
    v.context, $1::timestamptz
  from v order by v.id -- the first copy of a redelivered event is the one kept (ids increase in batch order)
  on conflict (connector_id, external_id) where external_id is not null do nothing
  returning id, group_id, org_id, connector_id, coalesce(release, '') as release, user_key, occurred_at, source, environment
), u as (
  insert into error_group_users (group_id, user_key, org_id, first_seen, last_seen)
  select group_id, user_key, min(org_id), min(occurred_at), max(occurred_at) from e where user_key is not null
  group by group_id, user_key order by group_id, user_key
  on conflict (group_id, user_key) do update set last_seen = greatest(error_group_users.last_seen, excluded.last_seen)
  returning group_id, (xmax = 0) as inserted
), nu as (
  select group_id, count(*) filter (where inserted)::int as n from u group by group_id
), seen as (
  -- When each release of a resolved group was first seen, this batch included.
  select group_id, release, min(first_seen) as first_seen from (
    select gr.group_id, gr.release, gr.first_seen from error_group_releases gr join k on k.group_id = gr.group_id and k.status = 'resolved'
    union all
    select group_id, release, min(occurred_at) from e group by group_id, release
  ) s group by group_id, release
), reg as (
  select distinct k.group_id from k join e on e.group_id = k.group_id
  left join seen sa on sa.group_id = k.group_id and sa.release = e.release
  left join seen sb on sb.group_id = k.group_id and sb.release = k.resolved_in_release
  cross join lateral (select ${versionOf('e.release')} as a, ${versionOf('k.resolved_in_release')} as b) vv
  where k.status = 'resolved' and e.occurred_at >= coalesce(k.resolved_at, '-infinity')
    and (k.resolved_in_release is null or e.release = '' or e.release = k.resolved_in_release
      or case when vv.a is not null and vv.b is not null then vv.a >= vv.b
        else sa.first_seen is null or sb.first_seen is null or sa.first_seen >= sb.first_seen end)
), ru as (
  -- Each user once per group and release: a pair already known writes nothing.
  insert into error_group_release_users (group_id, release, user_key, org_id)
  select group_id, release, user_key, min(org_id) from e where user_key is not null
  group by group_id, release, user_key order by group_id, release, user_key
  on conflict (group_id, release, user_key) do nothing
  returning group_id, release
), r as (
  insert into error_group_releases (group_id, release, org_id, status, event_count, first_seen, last_seen, affected_users)
  select s.group_id, s.release, s.org_id, 'watching', s.n, s.f, s.l, (select count(*) from ru where ru.group_id = s.group_id and ru.release = s.release)
  from (select group_id, release, min(org_id) as org_id, count(*) as n, min(occurred_at) as f, max(occurred_at) as l from e group by group_id, release) s
  order by s.group_id, s.release
  on conflict (group_id, release) do update set event_count = error_group_releases.event_count + excluded.event_count,
    affected_users = error_group_releases.affected_users + excluded.affected_users,
    first_seen = least(error_group_releases.first_seen, excluded.first_seen), last_seen = greatest(error_group_releases.last_seen, excluded.last_seen),
    status = case when excluded.group_id in (select group_id from reg) then 'watching' else error_group_releases.status end
  returning 1
), rw as (
  -- The other releases of a regressed group watch again too.
  update error_group_releases gr set status = 'watching' from reg
  where gr.group_id = reg.group_id and gr.status <> 'watching' and not exists (select 1 from e where e.group_id = gr.group_id and e.release = gr.release)
  returning 1
), h as (
  insert into error_group_hours (group_id, hour, org_id, count)
  select group_id, date_bin('1 hour', occurred_at, timestamptz '1970-01-01 00:00:00+00'), min(org_id), count(*) from e
  group by 1, 2 order by 1, 2
  on conflict (group_id, hour) do update set count = error_group_hours.count + excluded.count
  returning 1
), ch as (
  -- A connector's events_24h: the events it delivered, per hour received.
  insert into connector_hours (connector_id, hour, org_id, count)
  select connector_id, date_bin('1 hour', $1::timestamptz, timestamptz '1970-01-01 00:00:00+00'), min(org_id), count(*) from e
  where connector_id is not null
  group by 1 order by 1
  on conflict (connector_id, hour) do update set count = connector_hours.count + excluded.count
  returning 1
), c as (
  update connectors set last_delivery_at = $1::timestamptz, last_activity_at = $1::timestamptz where id = any($4::text[])
  returning 1
), b as (
  select k.workspace_id, k.fingerprint, count(e.id)::int as n, min(e.occurred_at) as f, max(e.occurred_at) as l,
    (array_agg(e.release order by e.occurred_at desc, e.id desc) filter (where e.release <> ''))[1] as rel,
    coalesce(jsonb_agg(distinct e.source order by e.source) filter (where e.id is not null), '[]') as src,
    coalesce(jsonb_agg(distinct e.environment order by e.environment) filter (where e.environment is not null), '[]') as env,
    coalesce(min(nu.n), 0) as users
  from k left join e on e.group_id = k.group_id left join nu on nu.group_id = k.group_id
  group by k.workspace_id, k.fingerprint, k.group_id
), g as (
  insert into error_groups as eg (id, org_id, workspace_id, fingerprint, status, type, title, normalized_message, sample_stack, frames, symbolicated, noise,
    event_count, affected_users, first_seen, last_seen, release, sources, environments, critical_path_hit, trigger, triggered_at, created_at, updated_at)
  select x.id, x.org_id, x.workspace_id, x.fingerprint, 'watching', x.type, x.title, x.normalized_message, x.sample_stack, x.frames, x.symbolicated, x.noise,
    b.n, b.users, coalesce(b.f, x.first_seen), coalesce(b.l, x.first_seen), b.rel, b.src, b.env, x.critical and b.n > 0,
    nf.fire, case when nf.fire is not null and x.ws_enabled then $1::timestamptz end, $1::timestamptz, $1::timestamptz
  from x join b on b.workspace_id = x.workspace_id and b.fingerprint = x.fingerprint
  cross join lateral (select case when x.noise or b.n = 0 then null when x.critical then 'critical_path'
    when x.ws_threshold is not null and b.users >= greatest(1, x.ws_threshold) then 'user_threshold' end as fire) nf
  order by x.workspace_id, x.fingerprint
  on conflict (workspace_id, fingerprint) do update set
    updated_at = excluded.updated_at,
    -- A group first seen with bundle frames takes the original frames of its first symbolicated event.
    frames = case when excluded.symbolicated and not eg.symbolicated then excluded.frames else eg.frames end,
    symbolicated = eg.symbolicated or excluded.symbolicated,
    event_count = eg.event_count + excluded.event_count,
    affected_users = eg.affected_users + excluded.affected_users,
    first_seen = case when excluded.event_count > 0 then least(eg.first_seen, excluded.first_seen) else eg.first_seen end,
    last_seen = case when excluded.event_count > 0 then greatest(eg.last_seen, excluded.last_seen) else eg.last_seen end,
    release = case when excluded.release is not null and excluded.last_seen >= eg.last_seen then excluded.release else eg.release end,
    sources = case when excluded.event_count > 0 then (select jsonb_agg(s order by s) from (select jsonb_array_elements_text(eg.sources) union select jsonb_array_elements_text(excluded.sources)) t(s)) else eg.sources end,
    environments = case when excluded.event_count > 0 then coalesce((select jsonb_agg(s order by s) from (select jsonb_array_elements_text(eg.environments) union select jsonb_array_elements_text(excluded.environments)) t(s)), '[]') else eg.environments end,
    critical_path_hit = eg.critical_path_hit or excluded.critical_path_hit,
    (status, trigger, regressed_at, triggered_at) = (
      select st.status, coalesce(f.fire, eg.trigger), case when st.reg then excluded.updated_at else eg.regressed_at end,
        case when f.fire is not null and xs.ws_enabled and not eg.noise and st.status = 'watching' then excluded.updated_at when st.reg then null else eg.triggered_at end
      from x xs
      cross join lateral (select eg.status = 'resolved' and eg.id in (select group_id from reg) as reg) r0
      cross join lateral (select r0.reg, case when r0.reg then 'watching' else eg.status end as status) st
      cross join lateral (select case when excluded.event_count = 0 then null when st.reg then 'regression'
        when st.status = 'watching' and eg.ticket_id is null and eg.triggered_at is null and not eg.noise and eg.held_reason is null then
          case when eg.critical_path_hit or excluded.critical_path_hit then 'critical_path'
            when xs.ws_threshold is not null and eg.affected_users + excluded.affected_users >= greatest(1, xs.ws_threshold) then 'user_threshold' end
        end as fire) f
      where xs.workspace_id = eg.workspace_id and xs.fingerprint = eg.fingerprint)
  returning eg.id, eg.org_id, eg.workspace_id, eg.fingerprint, eg.trigger, eg.triggered_at = $1::timestamptz as fired
), o as (
  insert into outbox (id, type, org_id, payload)
  select x.outbox_id, 'proactive.group_triggered', g.org_id, jsonb_build_object('group_id', g.id, 'workspace_id', g.workspace_id, 'trigger', g.trigger)
  from g join x on x.workspace_id = g.workspace_id and x.fingerprint = g.fingerprint where g.fired
  order by x.outbox_id
  returning 1
)
select coalesce((select json_agg(json_build_array(g.workspace_id, g.fingerprint, g.id)) from g), '[]'::json) as groups,
  coalesce((select array_agg(e.id) from e), '{}'::text[]) as inserted,
  (select count(*) from o)::int as announced`,
);

export interface FlushRow {
  /** [workspace id, fingerprint, group id] of each group of the batch. */
  groups: Array<[string, string, string]>;
  /** Ids of the events stored (the others were duplicates). */
  inserted: string[];
  /** Outbox rows written (triggers that fired). */
  announced: number;
}
