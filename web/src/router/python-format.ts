// Python's number and string formatting, as upstream's router writes its reasons and detection
// values: `round(x, n)`, `round(x)`, `'%.0f' % x`, `repr(str)` and `repr(float)` (laya-spec-current §11.3, §14).
// Python rounds the exact binary value of a float and breaks exact ties to even; JavaScript's
// toFixed also rounds the exact value but breaks ties upward, so only exact ties need fixing here.

/** x as an exact fraction mantissa / 2^shift (shift >= 0), for finite x. */
function exactBinary(x: number): { mantissa: bigint; shift: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & 0xfffffffffffffn;
  let exponent: number;
  if (exponentBits === 0) {
    exponent = -1074;
  } else {
    mantissa |= 1n << 52n;
    exponent = exponentBits - 1075;
  }
  if (bits >> 63n) mantissa = -mantissa;
  if (exponent >= 0) return { mantissa: mantissa << BigInt(exponent), shift: 0 };
  return { mantissa, shift: -exponent };
}

/**
 * The decimal text of x rounded to `digits` places, ties to even on the exact binary value: what
 * Python's `'%.{digits}f' % x` prints.
 */
export function formatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : x < 0 ? '-inf' : 'nan';
  const text = x.toFixed(digits);
  // An exact tie: 2·x·10^digits is an odd integer. toFixed then took the larger neighbour.
  const { mantissa, shift } = exactBinary(x);
  const twice = mantissa * 2n * 10n ** BigInt(digits);
  const denominator = 1n << BigInt(shift);
  if (twice % denominator !== 0n) return text;
  const halfUnits = twice / denominator;
  if (halfUnits % 2n === 0n) return text;
  // x = halfUnits / 2 units of 10^-digits: the neighbours are (halfUnits ± 1) / 2; keep the even one.
  const lower = (halfUnits - 1n) / 2n;
  const upper = (halfUnits + 1n) / 2n;
  const units = lower % 2n === 0n ? lower : upper;
  const negative = units < 0n || (units === 0n && x < 0);
  const digitsText = (units < 0n ? -units : units).toString().padStart(digits + 1, '0');
  const whole = digitsText.slice(0, digitsText.length - digits);
  const fraction = digitsText.slice(digitsText.length - digits);
  return (negative ? '-' : '') + whole + (digits > 0 ? '.' + fraction : '');
}

/** Python's `round(x, digits)` for a float: the float nearest the correctly rounded decimal. */
export function pyRound(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  if (Math.abs(x) >= 1e21) return x;
  const rounded = Number(formatFixed(x, digits));
  // Python keeps the sign of a value that rounds to zero (round(-0.00001, 4) is -0.0)
  return rounded === 0 && (x < 0 || Object.is(x, -0)) ? -0 : rounded;
}

/** Python's `round(x)` for a float: an integer (never -0), ties to even. */
export function pyRoundToInt(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  const rounded = rest > 0.5 ? floor + 1 : rest < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
  return rounded + 0;
}

/** Python's `repr(x)` for a float: the shortest round-trip digits, in Python's layout. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument gives the same shortest digits Python's repr uses.
  const [mantissaText, exponentText] = x.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissaText.startsWith('-');
  const digits = mantissaText.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const rest = digits.slice(1);
    const exponentSign = exponent < 0 ? '-' : '+';
    const exponentDigits = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${digits[0]}${rest ? '.' + rest : ''}e${exponentSign}${exponentDigits}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
}

// Python's str.isprintable() is false for these categories (the space itself is printable).
const kNotPrintable = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's `repr(s)` for a str, the text `%r` puts in upstream's reasons. */
export function pyRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp < 0x7f) out += ch;
    else if (ch !== ' ' && kNotPrintable.test(ch)) {
      if (cp <= 0xff) out += '\\x' + cp.toString(16).padStart(2, '0');
      else if (cp <= 0xffff) out += '\\u' + cp.toString(16).padStart(4, '0');
      else out += '\\U' + cp.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return out + quote;
}
