// A node's configuration as a form built from its type's field definitions (GET /components): text,
// numbers, switches, choices, nested groups, and JSON boxes for lists and maps. A secret field is
// write-only: its stored value shows as "set", and leaving it empty keeps it (the *** mark is sent).
import { useEffect, useState } from 'preact/hooks';
import { t } from '../../../i18n/index.ts';
import { nodeText } from '../../../i18n/node-texts.ts';
import { isLongText, isSecretField, SECRET_MARK, type ComponentField } from './components.ts';

type Config = Record<string, unknown>;

interface FormProps {
  fields: ComponentField[];
  value: Config;
  onChange: (value: Config) => void;
  /** The server's problem with a field (the name under configuration), shown under it. */
  fieldError?: { field: string; message: string } | undefined;
  idPrefix: string;
}

function without(config: Config, name: string): Config {
  const { [name]: _dropped, ...rest } = config;
  return rest;
}

/** A box for a list or map value: JSON, applied while it parses, its syntax error shown under it. */
export function JsonBox({
  id,
  value,
  onChange,
  label,
  rows = 4,
}: {
  id: string;
  value: unknown;
  onChange: (value: unknown) => void;
  label: string;
  rows?: number;
}) {
  const shown = value === undefined ? '' : JSON.stringify(value, null, 2);
  const [text, setText] = useState(shown);
  const [problem, setProblem] = useState<string | null>(null);
  // A change from elsewhere (the form beside it, the JSON tab) replaces the text unless it says the same.
  useEffect(() => {
    try {
      if (text.trim() !== '' && JSON.stringify(JSON.parse(text)) === JSON.stringify(value)) return;
    } catch {
      // the user is typing: replaced only by an outside change of the value
    }
    setText(shown);
    setProblem(null);
  }, [shown]);
  return (
    <>
      <textarea
        id={id}
        class="input code-input"
        rows={rows}
        spellcheck={false}
        aria-label={label}
        aria-invalid={problem ? 'true' : undefined}
        value={text}
        onInput={(event) => {
          const next = event.currentTarget.value;
          setText(next);
          if (next.trim() === '') {
            setProblem(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(next) as unknown);
            setProblem(null);
          } catch (error) {
            setProblem(error instanceof Error ? error.message : String(error));
          }
        }}
      />
      {problem && <span class="field-error">{t('graph.badJson', { problem })}</span>}
    </>
  );
}

function FieldInput({
  field,
  value,
  onChange,
  id,
  invalid,
}: {
  field: ComponentField;
  value: unknown;
  onChange: (value: unknown) => void;
  id: string;
  invalid: boolean;
}) {
  const shared = { id, 'aria-invalid': invalid ? ('true' as const) : undefined };
  const options = field.component?.type === 'select' ? (field.component.options ?? []) : undefined;
  if (options) {
    const current = value ?? field.defaultValue;
    return (
      <select
        class="input"
        {...shared}
        value={JSON.stringify(current ?? null)}
        onChange={(event) => onChange(JSON.parse(event.currentTarget.value) as unknown)}
      >
        {current === null || current === undefined ? <option value="null">{t('graph.choose')}</option> : null}
        {options.map((option) => (
          <option key={String(option.value)} value={JSON.stringify(option.value)}>
            {option.label}
          </option>
        ))}
      </select>
    );
  }
  switch (field.type) {
    case 'bool':
      return (
        <input
          type="checkbox"
          {...shared}
          checked={(value ?? field.defaultValue) === true}
          onChange={(event) => onChange(event.currentTarget.checked)}
        />
      );
    case 'int':
    case 'float64':
      return (
        <input
          type="number"
          class="input"
          {...shared}
          step={field.type === 'int' ? 1 : 'any'}
          value={typeof value === 'number' ? String(value) : ''}
          placeholder={field.defaultValue === null ? '' : String(field.defaultValue)}
          onInput={(event) => {
            const text = event.currentTarget.value;
            onChange(text === '' ? undefined : Number(text));
          }}
        />
      );
    case 'array':
    case 'map':
    case 'struct':
      return <JsonBox id={id} label={nodeText(field.label)} value={value} onChange={onChange} />;
    default:
      break;
  }
  const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  if (isSecretField(field.name)) {
    const stored = text === SECRET_MARK;
    return (
      <input
        type="password"
        class="input"
        autocomplete="off"
        {...shared}
        value={stored ? '' : text}
        placeholder={stored ? t('graph.secretSet') : ''}
        onInput={(event) => {
          const next = event.currentTarget.value;
          onChange(next === '' ? (stored ? SECRET_MARK : undefined) : next);
        }}
      />
    );
  }
  const placeholder = typeof field.defaultValue === 'string' ? field.defaultValue : '';
  const input = (next: string) => onChange(next === '' ? undefined : next);
  return isLongText(field) ? (
    <textarea
      class="input code-input"
      rows={4}
      spellcheck={false}
      {...shared}
      value={text}
      placeholder={placeholder}
      onInput={(event) => input(event.currentTarget.value)}
    />
  ) : (
    <input
      class="input"
      {...shared}
      value={text}
      placeholder={placeholder}
      onInput={(event) => input(event.currentTarget.value)}
    />
  );
}

export function ConfigForm({ fields, value, onChange, fieldError, idPrefix }: FormProps) {
  if (fields.length === 0) return <p class="muted">{t('graph.noSettings')}</p>;
  return (
    <div class="stack graph-config-form">
      {fields.map((field) => {
        const id = `${idPrefix}-${field.name}`;
        const current = value[field.name];
        const set = (next: unknown) =>
          onChange(next === undefined ? without(value, field.name) : { ...value, [field.name]: next });
        const problem = fieldError?.field === field.name ? fieldError.message : undefined;
        if (field.type === 'struct' && field.fields.length > 0 && !field.component) {
          const inner = current && typeof current === 'object' && !Array.isArray(current) ? current : {};
          return (
            <fieldset class="fieldset" key={field.name}>
              <legend>{nodeText(field.label)}</legend>
              {problem && <span class="field-error">{problem}</span>}
              <ConfigForm
                fields={field.fields}
                value={inner as Config}
                onChange={(next) => set(Object.keys(next).length === 0 ? undefined : next)}
                idPrefix={id}
              />
            </fieldset>
          );
        }
        const check = field.type === 'bool' && !field.component;
        return (
          <div class={check ? 'field graph-check' : 'field'} key={field.name} data-field={field.name}>
            <label class="field-label" for={id}>
              {nodeText(field.label)}
              {field.required ? ' *' : ''}
            </label>
            <FieldInput
              field={field}
              value={current}
              onChange={set}
              id={id}
              invalid={problem !== undefined}
            />
            {field.desc && field.desc !== field.label && (
              <span class="field-help">{nodeText(field.desc)}</span>
            )}
            {problem && <span class="field-error">{problem}</span>}
          </div>
        );
      })}
    </div>
  );
}
