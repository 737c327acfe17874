// The console's design system: import from 'ui' (src/ui/index.ts), never from a page.
export { Button, type ButtonProps } from './button';
export { Spinner, Progress } from './spinner';
export { TextField, TextArea, SelectField, CheckboxField } from './field';
export { NewPasswordField } from './password';
export { LocaleOptions } from './locale';
export { ErrorAlert, ErrorState, fieldError, useErrorText } from './errors';
export { LoadingState, EmptyState } from './states';
export { ToastProvider, useToast } from './toasts';
export { Dialog } from './dialog';
export { ConfirmDialog, ConfirmAction, type ConfirmableAction } from './confirm';
export { SecretOnce, type SecretTexts } from './secret';
export { CopyValue, useCopy, type CopyTexts } from './copy';
export { useRepeat } from './repeat';
export { useRecheck, VerifyButton, VerificationState, type Check } from './verification';
export { DataTable, KeysetTable, useKeysetQuery, type Column, type Page } from './table';
export { useFormat } from './format';
export { useTheme, applyTheme, storedTheme, applyBrandColor, type ThemeChoice } from './theme';
export { Chart, type ChartProps, type ChartSeries } from './chart';
