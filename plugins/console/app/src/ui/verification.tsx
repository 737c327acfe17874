import type { ReactNode } from 'react';
import { Button } from './button';
import { useRepeat } from './repeat';

/** A DNS check the person can run again (a useMutation without variables fits). */
export interface Check {
  mutate: (variables: undefined) => void;
  isPending: boolean;
}

/**
 * Once a domain was checked and is still pending, checks it again every 30 s while the page is open:
 * the records may be on their way. Never before a first check, which the person asks for.
 */
export function useRecheck(check: Check, waiting: boolean): void {
  useRepeat(
    () => {
      if (!check.isPending) check.mutate(undefined);
    },
    30_000,
    waiting,
  );
}

/** "Verify now" (primary) before the domain is verified, "Check again" after. */
export function VerifyButton({
  check,
  verified,
  verify,
  recheck,
}: {
  check: Check;
  verified: boolean;
  verify: string;
  recheck: string;
}) {
  return (
    <Button
      variant={verified ? 'secondary' : 'primary'}
      pending={check.isPending}
      onClick={() => check.mutate(undefined)}
    >
      {verified ? recheck : verify}
    </Button>
  );
}

/**
 * A domain's verification state in a live region, so a check that changes it is announced: verified since,
 * the last failure (a warning once verified, an error before) with when it was checked, then `children`,
 * then that it is being checked again. Texts come translated from the area.
 */
export function VerificationState({
  verified,
  verifiedAt,
  failure,
  checkedAt,
  failureDetail,
  rechecking,
  children,
}: {
  verified: boolean;
  verifiedAt: string;
  failure: string | null;
  checkedAt: string | null;
  failureDetail?: ReactNode;
  rechecking: string | null;
  children?: ReactNode;
}) {
  return (
    <div aria-live="polite" className="stack">
      {verified && (
        <div className="alert alert-success" role="status">
          {verifiedAt}
        </div>
      )}
      {failure && (
        <div className={`alert ${verified ? 'alert-warning' : 'alert-error'}`} role="status">
          <strong>{failure}</strong>
          {checkedAt && <div className="muted">{checkedAt}</div>}
          {failureDetail}
        </div>
      )}
      {children}
      {rechecking && <p className="muted">{rechecking}</p>}
    </div>
  );
}
