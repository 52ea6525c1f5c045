// Go's time.ParseDuration and Duration.String, so `duration("1h30m")` reads and prints as in RuleGo.
import { fault } from './errors.ts';

const UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  '\u00b5s': 1e3,
  '\u03bcs': 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Nanoseconds of a duration such as `300ms`, `-1.5h` or `2h45m`. */
export function parseDuration(text: string): number {
  const invalid = () => fault(`time: invalid duration ${JSON.stringify(text)}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const match = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = match?.[1] ?? '';
    const fraction = match?.[2];
    if (whole === '' && (fraction === undefined || fraction === '')) throw invalid();
    rest = rest.slice(match?.[0].length ?? 0);
    const unitMatch = /^[^\d.]+/.exec(rest);
    if (!unitMatch) throw fault(`time: missing unit in duration ${JSON.stringify(text)}`);
    const unitText = unitMatch[0];
    const unit = UNITS[unitText];
    if (unit === undefined) {
      throw fault(`time: unknown unit ${JSON.stringify(unitText)} in duration ${JSON.stringify(text)}`);
    }
    rest = rest.slice(unitText.length);
    total += Number(`${whole || '0'}.${fraction || '0'}`) * unit;
  }
  return sign * Math.round(total);
}

/** `1h0m0s`, `1.5s`, `300ms`, `0s`: Go's Duration.String. */
export function formatDuration(nanoseconds: number): string {
  const magnitude = Math.abs(Math.round(nanoseconds));
  const sign = nanoseconds < 0 ? '-' : '';
  if (magnitude === 0) return '0s';
  if (magnitude < 1e3) return `${sign}${magnitude}ns`;
  if (magnitude < 1e6) return `${sign}${fraction(magnitude, 3)}\u00b5s`;
  if (magnitude < 1e9) return `${sign}${fraction(magnitude, 6)}ms`;
  const totalSeconds = Math.floor(magnitude / 1e9);
  const seconds = fraction((totalSeconds % 60) * 1e9 + (magnitude % 1e9), 9);
  const totalMinutes = Math.floor(totalSeconds / 60);
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes > 0 ? `${totalMinutes % 60}m` : '';
  return `${sign}${hours > 0 ? `${hours}h` : ''}${minutes}${seconds}s`;
}

/** `value / 10^digits` with the fraction's trailing zeros (and a bare point) left out. */
function fraction(value: number, digits: number): string {
  const scale = 10 ** digits;
  const whole = Math.floor(value / scale);
  const rest = String(value % scale)
    .padStart(digits, '0')
    .replace(/0+$/, '');
  return rest === '' ? String(whole) : `${whole}.${rest}`;
}
