import type { ReactNode } from 'react';
import { Spinner } from './spinner';

export function LoadingState({ label }: { label?: string }) {
  return (
    <div className="state">
      <Spinner label={label} />
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <section className="state">
      <h2>{title}</h2>
      {children}
    </section>
  );
}
