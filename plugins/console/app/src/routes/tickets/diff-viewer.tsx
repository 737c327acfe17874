import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Diff, Hunk, parseDiff, type FileData } from 'react-diff-view';
import 'react-diff-view/style/index.css';

/**
 * A unified diff read by react-diff-view (its own lazy chunk: the ticket page loads it only
 * when a diff is opened). `text` is FixDiff.text as the API gave it.
 */
export default function DiffViewer({ text }: { text: string }) {
  const { t } = useTranslation();
  const files = useMemo(() => safeParse(text), [text]);
  if (!files) return <pre className="diff-raw">{text}</pre>;
  return (
    <div className="diff-files">
      {files.map((file) => {
        const path = file.type === 'delete' ? file.oldPath : file.newPath;
        return (
          <section
            key={`${file.oldPath}->${file.newPath}`}
            className="diff-file"
            aria-label={t('ticket.fix.diffOf', { path })}
          >
            <h4 className="diff-path">
              <code>{path}</code> <span className="muted">{t(`ticket.fix.fileTypes.${file.type}`)}</span>
            </h4>
            <div className="diff-scroll" tabIndex={0}>
              <Diff viewType="unified" diffType={file.type} hunks={file.hunks}>
                {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
              </Diff>
            </div>
          </section>
        );
      })}
    </div>
  );
}

// A text the parser cannot read is still shown, as it came.
function safeParse(text: string): FileData[] | null {
  try {
    const files = parseDiff(text, { nearbySequences: 'zip' });
    return files.length ? files : null;
  } catch {
    return null;
  }
}
