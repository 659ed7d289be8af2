// fetch + JSON with sensible defaults, for the end-to-end tests and the bench alike (no side
// effects on import, so the bench can use it without the test helpers' database).
export async function call(base: string, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
  const r = await fetch(base + path, {
    method,
    headers: { ...(opts.body !== undefined || opts.raw !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await r.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: r.status, headers: r.headers, json, text };
}
