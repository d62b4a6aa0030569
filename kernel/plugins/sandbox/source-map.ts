import { SourceMap } from 'node:module';

const INLINE_MAP = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * Where in the plugin's sources a stack trace of its module points: the first frame in `filename`, mapped through the
 * module's inline source map (what `node-cli plugin dev` builds) to `file:line:col`, or the module's own line and
 * column when it has no map. Null when no frame is the plugin's.
 */
export function sourceLocation(source: string, filename: string, stack: string): string | null {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const frame = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(stack);
  if (!frame) return null;
  const line = Number(frame[1]);
  const column = Number(frame[2]);
  const inline = INLINE_MAP.exec(source);
  if (!inline) return `${filename}:${line}:${column}`;
  try {
    const map = new SourceMap(JSON.parse(Buffer.from(inline[1]!, 'base64').toString('utf8')) as ConstructorParameters<typeof SourceMap>[0]);
    const at = map.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    if (!at.originalSource) return `${filename}:${line}:${column}`;
    return `${at.originalSource.replace(/^(?:\.\.\/)+/, '')}:${at.originalLine! + 1}:${at.originalColumn! + 1}`;
  } catch {
    return `${filename}:${line}:${column}`;
  }
}
