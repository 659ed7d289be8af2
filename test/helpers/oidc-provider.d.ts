// oidc-provider ships no types: the part of its API the OIDC tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    proxy: boolean;
    on(event: string, listener: (...args: any[]) => void): this;
  }
}
