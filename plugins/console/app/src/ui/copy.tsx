import { Button } from './button';
import { useToast } from './toasts';

/** What a copy button says (the caller's area names the value). */
export interface CopyTexts {
  /** The button's text ("Copy"). */
  button: string;
  copied: string;
  /** The clipboard refused: copy by hand. */
  failed: string;
}

/** Copies a text to the clipboard and says so (a refusal says to copy it by hand). */
export function useCopy(texts: { copied: string; failed: string }) {
  const toast = useToast();
  return async (value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      toast.success(texts.copied);
    } catch {
      toast.info(texts.failed);
    }
  };
}

/**
 * A value someone pastes elsewhere (a DNS record, the redirect URI an identity provider needs):
 * shown as code, with a button that copies it.
 */
export function CopyValue({
  value,
  label,
  action,
  texts,
}: {
  value: string;
  /** The value's accessible name ("Redirect URI"). */
  label: string;
  /** The button's accessible name, starting with its text ("Copy the redirect URI"). */
  action: string;
  texts: CopyTexts;
}) {
  const copy = useCopy(texts);
  return (
    <div className="secret copy-value">
      <code aria-label={label}>{value}</code>
      <Button onClick={() => void copy(value)} aria-label={action}>
        {texts.button}
      </Button>
    </div>
  );
}
