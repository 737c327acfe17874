import { useEffect, useRef } from 'react';

/**
 * A color sample. The color goes in through the CSSOM (CSP allows it; no style attribute in the
 * markup), as ui/theme.ts sets the brand color.
 */
export function Swatch({ color, label }: { color: string; label?: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    ref.current?.style.setProperty('--swatch', color);
  }, [color]);
  return (
    <span
      ref={ref}
      className="brand-swatch"
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    />
  );
}
