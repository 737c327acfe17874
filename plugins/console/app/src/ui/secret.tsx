import type { ReactNode } from 'react';
import { Button } from './button';
import { Dialog } from './dialog';
import { useCopy } from './copy';

/** The texts of a secret's dialog (the caller's area names what the secret is). */
export interface SecretTexts {
  title: string;
  /** The accessible name of the secret itself. */
  label: string;
  warning: string;
  copy: string;
  copied: string;
  /** The clipboard refused: copy by hand. */
  failed: string;
  done: string;
}

/**
 * A secret the API shows once (an API token, a signing secret): copy it now (the clipboard API;
 * a refusal says to copy it by hand); closing the dialog forgets it.
 */
export function SecretOnce({
  secret,
  texts,
  onClose,
  extra,
}: {
  secret: string;
  texts: SecretTexts;
  onClose: () => void;
  extra?: ReactNode;
}) {
  const copy = useCopy(texts);
  return (
    <Dialog open title={texts.title} onClose={onClose}>
      <div className="stack">
        <div className="alert alert-warning" role="note">
          {texts.warning}
        </div>
        <div className="secret">
          <code aria-label={texts.label}>{secret}</code>
          <Button variant="primary" onClick={() => void copy(secret)}>
            {texts.copy}
          </Button>
          {/* Another way to keep it (recovery codes: a file). */}
          {extra}
        </div>
        <div>
          <Button onClick={onClose}>{texts.done}</Button>
        </div>
      </div>
    </Dialog>
  );
}
