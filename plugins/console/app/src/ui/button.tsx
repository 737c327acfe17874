import type { ComponentPropsWithRef } from 'react';
import { Spinner } from './spinner';

export interface ButtonProps extends ComponentPropsWithRef<'button'> {
  variant?: 'primary' | 'secondary' | 'danger' | 'link';
  /** A request is under way: the button shows it and cannot be pressed again. */
  pending?: boolean;
  block?: boolean;
}

export function Button({
  variant = 'secondary',
  pending = false,
  block = false,
  className,
  children,
  disabled,
  type = 'button',
  ...rest
}: ButtonProps) {
  const classes = ['btn', `btn-${variant}`, block ? 'btn-block' : '', className ?? ''].filter(Boolean).join(' ');
  return (
    <button type={type} className={classes} disabled={disabled || pending} aria-busy={pending || undefined} {...rest}>
      {pending && <Spinner decorative />}
      {children}
    </button>
  );
}
