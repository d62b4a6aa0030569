/**
 * `displayDateFormat` (Document 2: "Date format string"): which strings are formats, and the formatter every front
 * end uses. Dates are shown in UTC: the node does not know the viewer's time zone.
 *
 * Tokens: YYYY year, MM month, MMM month name (Jan), DD day, HH hour 00-23, hh hour 01-12, A AM/PM, mm minutes,
 * ss seconds, SSS milliseconds. Other characters are literals, except that a letter outside a token must be `T` or
 * `Z` (ISO 8601) or stand in [brackets]: a stray letter is almost always a token from another syntax (`%Y`, `yyyy`,
 * `d/m/Y`) that would print as itself, so it is refused rather than shown. `unix` means seconds since the epoch.
 */

export const DEFAULT_DATE_FORMAT = 'DD/MM/YYYY HH:mm:ss';

const MAX_LENGTH = 64;
const TOKEN = /YYYY|MMM|MM|DD|HH|hh|mm|ss|SSS|A/;
/** One piece of a format: a bracketed literal, a token, T or Z, or a character that is neither a letter, a bracket nor a control. */
const PIECE = new RegExp(`\\[[^\\[\\]\\p{Cc}]*\\]|${TOKEN.source}|[TZ]|[^\\p{L}\\[\\]\\p{Cc}]`, 'uy');
const WHOLE_TOKEN = new RegExp(`^(?:${TOKEN.source})$`);

/** Why `format` is not a date format, or null. */
export function dateFormatProblem(format: string): string | null {
  if (format === 'unix') return null;
  if (format.length > MAX_LENGTH) return `must be at most ${MAX_LENGTH} characters`;
  let tokens = 0;
  PIECE.lastIndex = 0;
  while (PIECE.lastIndex < format.length) {
    const at = PIECE.lastIndex;
    const piece = PIECE.exec(format);
    if (!piece) {
      return `"${format}" is not a date format: "${format.slice(at, at + 1)}" at position ${at + 1} is no token; ` +
        'use YYYY MM MMM DD HH hh mm ss SSS A (case matters), punctuation and spaces as they are, other letters in [brackets], or unix';
    }
    if (WHOLE_TOKEN.test(piece[0])) tokens++;
  }
  return tokens ? null : `"${format}" is not a date format: it has no token (YYYY MM DD HH mm ss ...)`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `date` in `format`, a string dateFormatProblem accepts. */
export function formatDate(date: Date, format: string): string {
  if (format === 'unix') return String(Math.floor(date.getTime() / 1000));
  const h = date.getUTCHours();
  const parts: Record<string, string> = {
    YYYY: String(date.getUTCFullYear()),
    MMM: MONTHS[date.getUTCMonth()]!,
    MM: pad(date.getUTCMonth() + 1),
    DD: pad(date.getUTCDate()),
    HH: pad(h),
    hh: pad(h % 12 === 0 ? 12 : h % 12),
    mm: pad(date.getUTCMinutes()),
    ss: pad(date.getUTCSeconds()),
    SSS: pad(date.getUTCMilliseconds(), 3),
    A: h < 12 ? 'AM' : 'PM',
  };
  return format.replace(new RegExp(`\\[([^\\]]*)\\]|${TOKEN.source}`, 'g'), (token, literal?: string) => literal ?? parts[token]!);
}
