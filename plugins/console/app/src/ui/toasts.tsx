import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useErrorText } from './errors';

type Kind = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  kind: Kind;
  text: string;
}
interface ToastApi {
  success(text: string): void;
  info(text: string): void;
  /** An API error as the API stated it (localized title and message). */
  error(error: unknown): void;
}

const ToastContext = createContext<ToastApi | null>(null);

/** Short confirmations and failures of actions, announced politely to screen readers. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((x) => x.id !== id)), []);
  const push = useCallback(
    (kind: Kind, text: string) => {
      const id = next.current++;
      setToasts((all) => [...all.slice(-3), { id, kind, text }]);
      window.setTimeout(() => dismiss(id), kind === 'error' ? 10000 : 5000);
    },
    [dismiss],
  );
  const api = useMemo<ToastApi>(
    () => ({
      success: (text) => push('success', text),
      info: (text) => push('info', text),
      error: (error) => {
        const { title, message } = errorText(error);
        push('error', message && message !== title ? `${title}: ${message}` : title);
      },
    }),
    [push, errorText],
  );
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((x) => (
          <div key={x.id} className={`toast toast-${x.kind}`}>
            <p>{x.text}</p>
            <button
              type="button"
              className="btn btn-link"
              onClick={() => dismiss(x.id)}
              aria-label={t('common.dismiss')}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast outside ToastProvider');
  return api;
}
