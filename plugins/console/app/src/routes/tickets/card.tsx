import { useId, type ReactNode } from 'react';

/** A titled part of the ticket page: a landmark region named by its heading. */
export function Card({
  title,
  actions,
  children,
  className,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    <section className={`card stack ${className ?? ''}`} aria-labelledby={id}>
      <div className="spread">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** The first seven characters of a commit, with the whole one for copying and screen readers. */
export function Sha({ sha }: { sha: string | null }) {
  if (!sha) return null;
  return <code title={sha}>{sha.slice(0, 7)}</code>;
}

export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 7) : '');

/** Markdown and plain text shown as written (line breaks kept); never HTML. */
export function Prose({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return <div className="prose">{text}</div>;
}
