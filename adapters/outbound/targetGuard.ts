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
// IPv6: unspecified and loopback, link-local, unique-local, multicast, and the NAT64 prefixes
// (well-known and local-use), which reach IPv4 addresses through a translator.
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fe80::', 10], ['fc00::', 7], ['ff00::', 8], ['64:ff9b::', 96], ['64:ff9b:1::', 48]] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (dotted IPv4 tails included). */
function ipv6Bytes(address: string): number[] | null {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === null ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) return null;
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

/**
 * The IPv4 address an IPv6 address carries, where it reaches that IPv4 host: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and 6to4
 * (2002:aabb:ccdd::).
 */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  if (!b) return null;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const v4 = (i: number) => b.slice(i, i + 4).join('.');
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return v4(12);
  if (zero(0, 12) && !zero(12, 16)) return v4(12);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  return null;
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return blocked.check(address, 'ipv4');
  const v4 = embeddedIpv4(address);
  if (v4 !== null && blocked.check(v4, 'ipv4')) return true;
  return blocked.check(address, 'ipv6');
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

/**
 * A host (name or literal address) resolved and checked as a delivery does: the address to
 * connect to, or why it is refused. For clients that resolve names themselves (SMTP).
 */
export async function checkedAddress(host: string, allowPrivate: boolean): Promise<{ address: string } | { refusal: string }> {
  let addresses: string[];
  try {
    addresses = await resolveAll(host);
  } catch (err) {
    return { refusal: `${host} does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (!addresses.length) return { refusal: `${host} does not resolve` };
  const bad = allowPrivate ? undefined : addresses.find(isPrivateAddress);
  if (bad) return { refusal: `${host} resolves to ${bad}, a loopback, link-local or private address (set LNM_ALLOW_PRIVATE_TARGETS=true to allow them)` };
  return { address: addresses[0] };
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
