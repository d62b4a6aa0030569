/**
 * The `displayDateFormat` whitelist and a formatter for it. A whitelist rather than a free pattern: a display
 * setting must not be able to produce unreadable or ambiguous output, and every front end (CLI, GUI) has to
 * support each listed format. Dates are shown in UTC: the node does not know the viewer's time zone.
 *
 * Tokens: YYYY year, MM month, MMM month name (Jan), DD day, HH hour 00-23, hh hour 01-12, A AM/PM,
 * mm minutes, ss seconds, SSS milliseconds; anything else is literal. `unix` means seconds since the epoch.
 */
export const DATE_FORMATS = [
    'DD/MM/YYYY HH:mm:ss',
    'YYYY-MM-DD HH:mm:ss',
    'YYYY-MM-DD HH:mm:ss.SSS',
    'YYYY-MM-DDTHH:mm:ssZ',
    'MM/DD/YYYY HH:mm:ss',
    'MM/DD/YYYY hh:mm:ss A',
    'DD.MM.YYYY HH:mm:ss',
    'DD-MM-YYYY HH:mm:ss',
    'YYYY/MM/DD HH:mm:ss',
    'DD MMM YYYY HH:mm',
    'MMM DD, YYYY HH:mm',
    'YYYY-MM-DD',
    'DD/MM/YYYY',
    'MM/DD/YYYY',
    'unix',
];
export const DEFAULT_DATE_FORMAT = 'DD/MM/YYYY HH:mm:ss';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n, width = 2) => String(n).padStart(width, '0');
export function formatDate(date, format) {
    if (format === 'unix')
        return String(Math.floor(date.getTime() / 1000));
    const h = date.getUTCHours();
    const parts = {
        YYYY: String(date.getUTCFullYear()),
        MMM: MONTHS[date.getUTCMonth()],
        MM: pad(date.getUTCMonth() + 1),
        DD: pad(date.getUTCDate()),
        HH: pad(h),
        hh: pad(h % 12 === 0 ? 12 : h % 12),
        mm: pad(date.getUTCMinutes()),
        ss: pad(date.getUTCSeconds()),
        SSS: pad(date.getUTCMilliseconds(), 3),
        A: h < 12 ? 'AM' : 'PM',
    };
    return format.replace(/YYYY|MMM|MM|DD|HH|hh|mm|ss|SSS|A/g, (token) => parts[token]);
}
//# sourceMappingURL=display.js.map