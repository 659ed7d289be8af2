// The stand-in's peer-to-peer layer. NOT devp2p/RLPx: a tiny handshake of its own over TCP that
// checks what matters for wiring: that the peer at an enode address holds the private key of the
// enode's node id (it signs our nonce; the recovered public key must be the id we dialed), and
// that both sides run the same network (network id and genesis file digest, as devp2p's eth
// Status compares network id and genesis hash). Peers are the distinct node ids with a live,
// proven connection. Bootnodes are dialed, and re-dialed every second while not connected.
//
// Wire: newline-delimited JSON. Each side sends {hello:{id,nonce,networkId,genesis}} at once,
// then, on the other's hello, {proof: signature of sha256(other's nonce)}.
import net from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { SigningKey } from 'ethers';

export interface P2pOptions {
  key: SigningKey;
  /** the address the listener binds (besu's p2p-interface) */
  host: string;
  port: number;
  networkId: number;
  genesisDigest: string;
  bootnodes: string[];
  log: (line: string) => void;
}

export interface P2pNode {
  nodeId: string;
  peers(): { id: string; remoteAddress: string; inbound: boolean }[];
  close(): Promise<void>;
}

interface Hello {
  id: string;
  nonce: string;
  networkId: number;
  genesis: string;
}

const nodeIdOf = (key: SigningKey) => key.publicKey.slice(4).toLowerCase();
const digest = (nonce: string) => '0x' + createHash('sha256').update(Buffer.from(nonce, 'hex')).digest('hex');

export function parseEnode(url: string): { id: string; host: string; port: number } {
  const m = /^enode:\/\/([0-9a-fA-F]{128})@([0-9.]+):(\d+)(\?discport=\d+)?$/.exec(url.trim());
  if (!m) throw new Error(`Invalid enode URL syntax '${url}'. Enode URL should have the following format 'enode://<node_id>@<ip>:<listening_port>[?discport=<discovery_port>]'.`);
  return { id: m[1].toLowerCase(), host: m[2], port: Number(m[3]) };
}

export async function startP2p(o: P2pOptions): Promise<P2pNode> {
  const self = nodeIdOf(o.key);
  const seeds = o.bootnodes.map(parseEnode);
  const live = new Map<net.Socket, { id: string; inbound: boolean }>();
  const dialing = new Set<string>();
  const sockets = new Set<net.Socket>();
  let closed = false;

  function session(socket: net.Socket, inbound: boolean, expectedId: string | null): void {
    const nonce = randomBytes(16).toString('hex');
    let peer: Hello | null = null;
    let buffer = '';
    const drop = (why: string) => {
      o.log(`Disconnecting from ${socket.remoteAddress}:${socket.remotePort}: ${why}`);
      socket.destroy();
    };
    socket.setEncoding('utf8');
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (live.delete(socket) && !closed) o.log(`Peer disconnected: 0x${peer?.id.slice(0, 16)}...`);
    });
    socket.write(JSON.stringify({ hello: { id: self, nonce, networkId: o.networkId, genesis: o.genesisDigest } satisfies Hello }) + '\n');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (buffer.length > 64 * 1024) return drop('oversized message');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let msg: { hello?: Hello; proof?: string };
        try {
          msg = JSON.parse(line);
        } catch {
          return drop('malformed message');
        }
        if (msg.hello && !peer) {
          const h = msg.hello;
          if (!/^[0-9a-f]{128}$/.test(h.id ?? '') || !/^[0-9a-f]{32}$/.test(h.nonce ?? '')) return drop('malformed hello');
          if (h.id === self) return drop('connected to self');
          if (expectedId && h.id !== expectedId) return drop(`node id mismatch: dialed 0x${expectedId.slice(0, 16)}..., peer claims 0x${h.id.slice(0, 16)}...`);
          if (h.networkId !== o.networkId) return drop(`network id mismatch: ours ${o.networkId}, peer ${h.networkId}`);
          if (h.genesis !== o.genesisDigest) return drop('genesis mismatch');
          peer = h;
          socket.write(JSON.stringify({ proof: o.key.sign(digest(h.nonce)).serialized }) + '\n');
        } else if (msg.proof && peer) {
          let recovered: string;
          try {
            recovered = SigningKey.recoverPublicKey(digest(nonce), msg.proof).slice(4).toLowerCase();
          } catch {
            return drop('bad proof');
          }
          if (recovered !== peer.id) return drop('peer does not hold the key of its node id');
          live.set(socket, { id: peer.id, inbound });
          o.log(`Peer connected: 0x${peer.id.slice(0, 16)}... (${inbound ? 'inbound' : 'outbound'}), peers: ${new Set([...live.values()].map((p) => p.id)).size}`);
        } else {
          return drop('unexpected message');
        }
      }
    });
  }

  const server = net.createServer((socket) => session(socket, true, null));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });

  function dial(seed: { id: string; host: string; port: number }): void {
    if (closed || dialing.has(seed.id) || [...live.values()].some((p) => p.id === seed.id) || seed.id === self) return;
    dialing.add(seed.id);
    const socket = net.connect(seed.port, seed.host);
    socket.once('connect', () => session(socket, false, seed.id));
    socket.once('close', () => dialing.delete(seed.id));
    socket.on('error', () => undefined);
  }
  const timer = setInterval(() => seeds.forEach(dial), 1000);
  seeds.forEach(dial);

  return {
    nodeId: self,
    peers: () => {
      const seen = new Map<string, { id: string; remoteAddress: string; inbound: boolean }>();
      for (const [s, p] of live) if (!seen.has(p.id)) seen.set(p.id, { id: p.id, remoteAddress: `${s.remoteAddress}:${s.remotePort}`, inbound: p.inbound });
      return [...seen.values()];
    },
    async close() {
      closed = true;
      clearInterval(timer);
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(() => r(undefined)));
    },
  };
}
