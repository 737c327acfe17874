import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

interface Common {
  label: ReactNode;
  /** The API's message for this field (`details.errors` of a 400), shown under it. */
  error?: string;
  hint?: ReactNode;
}

function described(id: string, hint: ReactNode, error?: string) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { 'aria-describedby': ids || undefined, 'aria-invalid': error ? true : undefined };
}

function Extra({ id, hint, error }: { id: string; hint: ReactNode; error?: string }) {
  return (
    <>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span className="error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </>
  );
}

export function TextField({ label, error, hint, id: given, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} {...described(id, hint, error)} {...input} />
      <Extra id={id} hint={hint} error={error} />
    </div>
  );
}

export function TextArea({
  label,
  error,
  hint,
  id: given,
  ...input
}: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} {...described(id, hint, error)} {...input} />
      <Extra id={id} hint={hint} error={error} />
    </div>
  );
}

export function SelectField({
  label,
  error,
  hint,
  id: given,
  children,
  ...select
}: Common & SelectHTMLAttributes<HTMLSelectElement>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...described(id, hint, error)} {...select}>
        {children}
      </select>
      <Extra id={id} hint={hint} error={error} />
    </div>
  );
}

export function CheckboxField({
  label,
  error,
  hint,
  id: given,
  ...input
}: Common & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>) {
  const auto = useId();
  const id = given ?? auto;
  return (
    <div className="field">
      <span className="check">
        <input type="checkbox" id={id} {...described(id, hint, error)} {...input} />
        <label htmlFor={id}>{label}</label>
      </span>
      <Extra id={id} hint={hint} error={error} />
    </div>
  );
}

/**
 * Several choices out of a list, one checkbox each, kept as the list of chosen values (a new one
 * goes last). `children` says something before the boxes (e.g. that there is nothing to choose).
 */
export function CheckboxGroup<T extends string>({
  legend,
  hint,
  error,
  options,
  value,
  onChange,
  className,
  children,
}: Omit<Common, 'label'> & {
  legend: ReactNode;
  options: readonly { value: T; label: string }[];
  value: readonly T[];
  onChange: (value: T[]) => void;
  /** The class of the boxes' container (their grid). */
  className: string;
  children?: ReactNode;
}) {
  const id = useId();
  return (
    <fieldset aria-describedby={hint ? `${id}-hint` : undefined}>
      <legend id={id}>{legend}</legend>
      {hint && (
        <p className="hint muted" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children}
      <div className={className}>
        {options.map((o) => (
          <CheckboxField
            key={o.value}
            label={o.label}
            checked={value.includes(o.value)}
            onChange={(e) => onChange(e.target.checked ? [...value, o.value] : value.filter((v) => v !== o.value))}
          />
        ))}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
