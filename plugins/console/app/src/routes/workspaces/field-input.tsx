import { useTranslation } from 'react-i18next';
import { CheckboxField, CheckboxGroup, SelectField, TextArea, TextField } from '../../ui';
import type { FieldSpec, FormValue } from './fields';

/** One workspace setting as the control its type asks for; label, hint and the API's error from the catalogue. */
export function FieldInput({
  spec,
  value,
  error,
  choices,
  onChange,
}: {
  spec: FieldSpec;
  value: FormValue;
  error?: string;
  /** Options read from the API (brand profiles) instead of the document's enum. */
  choices?: { value: string; label: string }[];
  onChange: (v: FormValue) => void;
}) {
  const { t } = useTranslation();
  const label = t(`workspaces.fields.${spec.name}`);
  const hint = spec.hint ? t(`workspaces.hints.${spec.name}`) : undefined;
  const optionLabel = (v: string) =>
    spec.name === 'locale' ? t(`common.locales.${v}`) : spec.labelled ? t(`workspaces.options.${spec.name}.${v}`) : v;
  switch (spec.kind) {
    case 'check':
      return (
        <CheckboxField
          label={label}
          hint={hint}
          error={error}
          checked={value as boolean}
          onChange={(e) => onChange(e.target.checked)}
        />
      );
    case 'multi':
      return (
        <CheckboxGroup
          legend={label}
          hint={hint}
          error={error}
          options={(spec.options ?? []).map((o) => ({ value: o, label: optionLabel(o) }))}
          value={value as string[]}
          onChange={onChange}
          className="ws-multi"
        />
      );
    case 'select': {
      const list = choices ?? (spec.options ?? []).map((o) => ({ value: o, label: optionLabel(o) }));
      return (
        <SelectField
          label={label}
          hint={hint}
          error={error}
          value={value as string}
          onChange={(e) => onChange(e.target.value)}
        >
          {spec.nullable && (
            <option value="">
              {t(spec.name === 'brand_profile_id' ? 'workspaces.defaultBrand' : 'workspaces.notSet')}
            </option>
          )}
          {/* A stored value the list does not know (a profile not loaded yet) stays selectable. */}
          {value !== '' && !list.some((o) => o.value === value) && (
            <option value={value as string}>{value as string}</option>
          )}
          {list.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </SelectField>
      );
    }
    case 'textarea':
    case 'lines':
      return (
        <TextArea
          label={label}
          hint={hint}
          error={error}
          value={value as string}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'number':
      return (
        <TextField
          label={label}
          hint={hint}
          error={error}
          type="number"
          inputMode="decimal"
          step={spec.step ?? '1'}
          value={value as string}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    default:
      return (
        <TextField
          label={label}
          hint={hint}
          error={error}
          value={value as string}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
}
