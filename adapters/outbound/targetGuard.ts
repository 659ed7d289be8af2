// Outbound targets: a webhook or notification URL that resolves to loopback, link-local,
// private, shared (CGNAT), multicast or unspecified addresses is refused unless private targets
// are allowed (LNM_ALLOW_PRIVATE_TARGETS). The check runs when the URL is saved and again at
// every delivery, on what the name resolves to then; the connection then goes to exactly the
// address that was checked (see guardedLookup), so a DNS answer cannot change in between.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fe80::', 10], ['fc00::', 7], ['ff00::', 8], ['64:ff9b::', 96]] as const) blocked.addSubnet(net, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export function schemeRefusal(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `scheme ${u.protocol} is not allowed (http or https)`;
  if (u.username || u.password) return 'credentials in the URL are not allowed (use customHeaders)';
  return null;
}

export async function resolveAll(host: string): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  return new Promise((resolve, reject) => lookup(bare, { all: true }, (err, addrs) => (err ? reject(err) : resolve(addrs.map((a) => a.address)))));
}

export async function targetRefusal(url: string, allowPrivate: boolean): Promise<string | null> {
  const scheme = schemeRefusal(url);
  if (scheme) return scheme;
  if (allowPrivate) return null;
  const host = new URL(url).hostname;
  let addresses: string[];
  try {
    addresses = await resolveAll(host);
  } catch (err) {
    return `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  const bad = addresses.find(isPrivateAddress);
  return bad ? `${host} resolves to ${bad}, a loopback, link-local or private address (set LNM_ALLOW_PRIVATE_TARGETS=true to allow them)` : null;
}

/** A DNS lookup for http.request that fails on private answers, so the checked address is the one connected to. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addrs) => {
      if (err) return (callback as (e: Error | null, a: unknown, f?: number) => void)(err, '', 0);
      const list = addrs as unknown as Array<{ address: string; family: number }>;
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) return (callback as (e: Error | null, a: unknown, f?: number) => void)(new Error(`${hostname} resolves to ${bad.address}, a private address; refused`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as (e: Error | null, a: unknown) => void)(null, list);
      (callback as (e: Error | null, a: string, f: number) => void)(null, list[0].address, list[0].family);
    });
  };
}
