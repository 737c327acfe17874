import type { ReactNode } from 'react';

/** A table that scrolls sideways on a phone (by keyboard too: the region is focusable), named by its caption. */
export function ScrollTable({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/** The last day of a range whose end is exclusive (the API's `to` and `period.end`), for "from … to …". */
export const lastDayOf = (end: string): string => new Date(new Date(end).getTime() - 1).toISOString();
