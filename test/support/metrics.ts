/** Reading a node's scrape endpoint (`GET /metrics`) in tests. */

export async function scrape(baseUrl: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; text: string }> {
  const res = await fetch(`${baseUrl}/metrics`, { headers });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/**
 * The value of one series in a text exposition, 0 when absent (a counter never incremented). `labels` must be all of
 * the series' labels, as the exposition orders them.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const set = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',');
  const prefix = set ? `${name}{${set}} ` : `${name} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line ? Number(line.slice(prefix.length)) : 0;
}
