import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { Schema } from '../../api/types';
import { proactiveKeys } from '../../queries/proactive';
import {
  Button,
  ConfirmDialog,
  Form,
  KeysetTable,
  TextField,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { ActionError } from './parts';

type MapRelease = Schema<'SourceMapReleaseList'>['items'][number];
type SourceMap = Schema<'SourceMap'>;

// The service's default limits (plugins.proactive.options.sourcemaps): said before a person picks files.
const MAX_FILES = 200;
const MAX_MAP_MB = 20;
const MAX_UPLOAD_MB = 50;

/** Source maps by release: the service maps minified frames back to the original file:line with them. */
export function SourceMaps({ workspaceId, canChange }: { workspaceId: string; canChange: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [open, setOpen] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const releases = useKeysetQuery<MapRelease>(proactiveKeys.mapReleases(workspaceId), (cursor) =>
    data(api.GET('/v1/sourcemaps/releases', { params: { query: { workspace_id: workspaceId, cursor } } })),
  );
  const columns: Column<MapRelease>[] = [
    { header: t('proactive.maps.release'), cell: (r) => <code>{r.release}</code> },
    { header: t('proactive.maps.files'), cell: (r) => fmt.number(r.files) },
    { header: t('proactive.maps.size'), cell: (r) => bytes(r.size, fmt.number) },
    { header: t('proactive.maps.uploaded'), cell: (r) => fmt.dateTime(r.last_uploaded_at) },
    {
      header: t('proactive.actions'),
      hiddenHeader: true,
      cell: (r) => (
        <div className="row">
          <Button
            aria-expanded={open === r.release}
            onClick={() => setOpen(open === r.release ? null : r.release)}
            aria-label={t('proactive.maps.showFilesOf', { release: r.release })}
          >
            {t('proactive.maps.showFiles')}
          </Button>
          {canChange && (
            <Button
              variant="danger"
              onClick={() => setRemoving(r.release)}
              aria-label={t('proactive.maps.deleteOf', { release: r.release })}
            >
              {t('proactive.maps.delete')}
            </Button>
          )}
        </div>
      ),
    },
  ];
  return (
    <div className="stack">
      <p className="muted">{t('proactive.maps.intro')}</p>
      {canChange && <Upload workspaceId={workspaceId} />}
      <h3>{t('proactive.maps.releases')}</h3>
      <KeysetTable
        caption={t('proactive.maps.releases')}
        columns={columns}
        query={releases}
        rowKey={(r) => r.release}
        emptyTitle={t('proactive.maps.none')}
      />
      {open && <Files workspaceId={workspaceId} release={open} />}
      {removing && <Remove workspaceId={workspaceId} release={removing} onClose={() => setRemoving(null)} />}
    </div>
  );
}

const bytes = (n: number, num: (n: number, o?: Intl.NumberFormatOptions) => string) =>
  n >= 1024 * 1024
    ? `${num(n / 1024 / 1024, { maximumFractionDigits: 1 })} MB`
    : `${num(Math.max(1, Math.round(n / 1024)))} KB`;

function Files({ workspaceId, release }: { workspaceId: string; release: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const files = useKeysetQuery<SourceMap>(proactiveKeys.maps(workspaceId, release), (cursor) =>
    data(api.GET('/v1/sourcemaps', { params: { query: { workspace_id: workspaceId, release, cursor } } })),
  );
  const columns: Column<SourceMap>[] = [
    { header: t('proactive.maps.urlPath'), cell: (m) => <code className="pa-break">{m.url_path}</code> },
    { header: t('proactive.maps.sources'), cell: (m) => fmt.number(m.sources_count) },
    { header: t('proactive.maps.size'), cell: (m) => bytes(m.size, fmt.number) },
    { header: t('proactive.maps.uploaded'), cell: (m) => fmt.dateTime(m.updated_at) },
  ];
  return (
    <section className="card stack" aria-labelledby="pa-map-files">
      <h3 id="pa-map-files">{t('proactive.maps.filesOf', { release })}</h3>
      <KeysetTable
        caption={t('proactive.maps.filesOf', { release })}
        columns={columns}
        query={files}
        rowKey={(m) => m.id}
        emptyTitle={t('proactive.maps.none')}
      />
    </section>
  );
}

function Remove({ workspaceId, release, onClose }: { workspaceId: string; release: string; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/sourcemaps', { params: { query: { workspace_id: workspaceId, release } } })),
    onSuccess: (r) => {
      toast.success(t('proactive.maps.deleted', { count: r.deleted, release }));
      void client.invalidateQueries({ queryKey: proactiveKeys.mapReleases(workspaceId) });
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={t('proactive.maps.deleteTitle', { release })}
      confirm={t('proactive.maps.deleteConfirm')}
      danger
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      <p>{t('proactive.maps.deleteBody')}</p>
    </ConfirmDialog>
  );
}

interface Picked {
  name: string;
  url_path: string;
  map: string;
}

/** Picks .map files; each is stored under the bundle's URL path (the prefix plus the map's name without .map). */
function Upload({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [release, setRelease] = useState('');
  const [prefix, setPrefix] = useState('/static/js/');
  const [picked, setPicked] = useState<Picked[]>([]);
  const [tooMany, setTooMany] = useState(false);
  const pick = async (list: FileList | null) => {
    const files = [...(list ?? [])];
    setTooMany(files.length > MAX_FILES);
    const read = await Promise.all(
      files.slice(0, MAX_FILES).map(async (f) => ({ name: f.name, url_path: '', map: await f.text() })),
    );
    setPicked(read);
  };
  const pathOf = (p: Picked) => p.url_path || `${prefix.replace(/\/?$/, '/')}${p.name.replace(/\.map$/, '')}`;
  const upload = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/sourcemaps', {
          body: {
            workspace_id: workspaceId,
            release: release.trim(),
            files: picked.map((p) => ({ url_path: pathOf(p), map: p.map })),
          },
        }),
      ),
    onSuccess: (r) => {
      toast.success(t('proactive.maps.uploadedToast', { count: r.files.length, release: r.release }));
      setPicked([]);
      void client.invalidateQueries({ queryKey: proactiveKeys.mapReleases(workspaceId) });
      void client.invalidateQueries({ queryKey: proactiveKeys.maps(workspaceId, r.release) });
    },
  });
  // A refused map names its file and problem (details.errors of 422 invalid_source_map).
  const issues =
    isApiError(upload.error) && upload.error.code === 'invalid_source_map' ? upload.error.details.errors : null;
  return (
    <Form className="card stack" onSubmit={() => upload.mutate()} aria-labelledby="pa-upload">
      <h3 id="pa-upload">{t('proactive.maps.upload')}</h3>
      <p className="muted">{t('proactive.maps.limits', { files: MAX_FILES, map: MAX_MAP_MB, total: MAX_UPLOAD_MB })}</p>
      <ActionError error={upload.error} fields={['release', 'files']} />
      {Array.isArray(issues) && (
        <ul>
          {(issues as Array<{ url_path?: string; code?: string; message?: string }>).map((i, n) => (
            <li key={n}>
              <code>{i.url_path}</code>: {i.message}
            </li>
          ))}
        </ul>
      )}
      <div className="pa-fields">
        <TextField
          label={t('proactive.maps.release')}
          hint={t('proactive.maps.releaseHint')}
          value={release}
          onChange={(e) => setRelease(e.target.value)}
        />
        <TextField
          label={t('proactive.maps.prefix')}
          hint={t('proactive.maps.prefixHint')}
          value={prefix}
          onChange={(e) => setPrefix(e.target.value)}
        />
        <div className="field">
          <label htmlFor="pa-map-files-input">{t('proactive.maps.pick')}</label>
          <input
            id="pa-map-files-input"
            type="file"
            multiple
            accept=".map,application/json"
            onChange={(e) => void pick(e.target.files)}
          />
        </div>
      </div>
      {tooMany && (
        <div className="alert alert-warning" role="status">
          {t('proactive.maps.tooMany', { files: MAX_FILES })}
        </div>
      )}
      {picked.length > 0 && (
        <ul className="stack pa-picked">
          {picked.map((p, i) => (
            <li key={p.name}>
              <TextField
                label={t('proactive.maps.pathOf', { name: p.name })}
                value={pathOf(p)}
                onChange={(e) => setPicked(picked.map((x, j) => (j === i ? { ...x, url_path: e.target.value } : x)))}
              />
            </li>
          ))}
        </ul>
      )}
      <div>
        <Button
          type="submit"
          variant="primary"
          pending={upload.isPending}
          disabled={picked.length === 0 || !release.trim()}
        >
          {t('proactive.maps.uploadSubmit')}
        </Button>
      </div>
    </Form>
  );
}
