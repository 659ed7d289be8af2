// What webhooks and notifications need from the outside: an HTTP POST that refuses private
// targets (unless allowed) and reports what the receiver answered, and a box that seals secrets
// under KEY_ENCRYPTION_KEY. Adapters: adapters/outbound/.

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** Never thrown: every outcome, refused and timed out included, is a value. */
export interface OutboundResult {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first few hundred characters of the response body; never more is kept. */
  excerpt: string | null;
}

export interface OutboundHttp {
  /** Why the URL may not be a target (scheme, private address), or null when it may. */
  refusal(url: string): Promise<string | null>;
  post(request: OutboundRequest): Promise<OutboundResult>;
}

export interface SecretBox {
  seal(plain: string, context: string): Promise<string>;
  open(sealed: string, context: string): Promise<string>;
}
