import { Link } from 'react-router';

export function Logo() {
  return (
    <Link to="/" className="brand-mark">
      <svg width="28" height="28" viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="7" fill="var(--brand)" />
        <path
          d="M9 23V9h8a5 5 0 0 1 0 10h-4"
          fill="none"
          stroke="var(--brand-contrast)"
          strokeWidth="3"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span>Patchwell</span>
    </Link>
  );
}
