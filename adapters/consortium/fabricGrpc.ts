// TLS gRPC clients of a peer's and an orderer's services. Nodes are reached by address (often
// 127.0.0.1) while their certificate names a host, so the name checked is `serverName` when the
// endpoint gives one (grpc.ssl_target_name_override), the host otherwise.
//   grpcClient(endpoint)          -> grpc.Client (for @hyperledger/fabric-gateway)
//   endorserClient(endpoint)      -> peer.EndorserClient
//   peerDeliverClient(endpoint)   -> peer.DeliverClient
//   atomicBroadcastClient(endpoint) -> orderer.AtomicBroadcastClient
//   withClient(make, endpoint, use) -> runs `use` and always closes the client
//   nodeName(endpoint)            -> "host:port" (or "serverName (host:port)") for messages
import * as grpc from '@grpc/grpc-js';
import { createHash } from 'node:crypto';
import { orderer, peer } from '@hyperledger/fabric-protos';
import type { Endpoint } from '../../domain/consortium/consortiumPorts.ts';

// Config blocks with many organizations and their certificates exceed gRPC's 4 MiB default.
const maxMessageBytes = 100 * 1024 * 1024;

export function nodeName(endpoint: Endpoint): string {
  const address = `${endpoint.host}:${endpoint.port}`;
  return endpoint.serverName && endpoint.serverName !== endpoint.host ? `${endpoint.serverName} (${address})` : address;
}

function channelOptions(endpoint: Endpoint): grpc.ChannelOptions {
  const options: grpc.ChannelOptions = {
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
    // Nodes are restarted by this service: a connection kept open across a restart must try
    // again within seconds, not after gRPC's default backoff of up to two minutes.
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2000,
  };
  if (endpoint.serverName) {
    options['grpc.ssl_target_name_override'] = endpoint.serverName;
    options['grpc.default_authority'] = endpoint.serverName;
  }
  return options;
}

function credentials(endpoint: Endpoint): grpc.ChannelCredentials {
  return grpc.credentials.createSsl(Buffer.from(endpoint.tlsCaCertPem));
}

type ClientConstructor<C> = new (address: string, credentials: grpc.ChannelCredentials, options?: object) => C;

function make<C>(ctor: ClientConstructor<C>, endpoint: Endpoint): C {
  return new ctor(`${endpoint.host}:${endpoint.port}`, credentials(endpoint), channelOptions(endpoint));
}

export const grpcClient = (endpoint: Endpoint): grpc.Client => make(grpc.Client, endpoint);

// One gRPC connection per peer endpoint for the life of the service, shared by the chaincode
// gateway and the ledger reads: a TLS handshake per call would multiply a query's latency. gRPC
// reconnects by itself after the peer restarts; a caller that found its peer unreachable drops
// the connection (dropSharedClient), so the next call starts a fresh one instead of waiting out
// the old one's backoff.
const shared = new Map<string, grpc.Client>();
const sharedKey = (endpoint: Endpoint) => `${endpoint.host}:${endpoint.port}|${endpoint.serverName ?? ''}|${createHash('sha256').update(endpoint.tlsCaCertPem).digest('hex')}`;

export function sharedGrpcClient(endpoint: Endpoint): grpc.Client {
  const key = sharedKey(endpoint);
  let client = shared.get(key);
  if (!client) {
    client = grpcClient(endpoint);
    shared.set(key, client);
  }
  return client;
}

export function dropSharedClient(endpoint: Endpoint): void {
  const key = sharedKey(endpoint);
  shared.get(key)?.close();
  shared.delete(key);
}
export const endorserClient = (endpoint: Endpoint): peer.EndorserClient => make(peer.EndorserClient, endpoint);
export const peerDeliverClient = (endpoint: Endpoint): peer.DeliverClient => make(peer.DeliverClient, endpoint);
export const atomicBroadcastClient = (endpoint: Endpoint): orderer.AtomicBroadcastClient => make(orderer.AtomicBroadcastClient, endpoint);

export async function withClient<C extends grpc.Client, T>(factory: (endpoint: Endpoint) => C, endpoint: Endpoint, use: (client: C) => Promise<T>): Promise<T> {
  const client = factory(endpoint);
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

export function deadline(ms: number): Date {
  return new Date(Date.now() + ms);
}
