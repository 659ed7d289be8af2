// The orderer's channel participation API (HTTPS on the admin port, mutual TLS with a client
// certificate of a TLS CA the orderer trusts for admins): join a channel with its genesis block,
// list channels, read one. Joining a channel the orderer already has is not an error: Fabric
// answers 405 "channel already exists", and the existing channel's info is returned instead.
//   joinOrderer(admin, client, channelName, genesisBlock) -> OrdererChannelInfo
//   listOrdererChannels(admin, client)                    -> OrdererChannelInfo[]
//   ordererChannel(admin, client, channelName)            -> OrdererChannelInfo | null
//   leaveOrderer(admin, client, channelName)              -> { removed } (osnadmin channel remove; false: it had no such channel)
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { FabricNodeUnreachableError, FabricRefusedError, type OrdererChannelInfo } from '../../domain/consortium/consortiumChannelPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import type { Endpoint, TlsClientIdentity } from '../../domain/consortium/consortiumPorts.ts';
import { channelNameProblem } from './fabricGenesis.ts';
import { nodeName } from './fabricGrpc.ts';
import { configBlockChannel } from './channelConfig.ts';

const basePath = '/participation/v1/channels';

interface Answer {
  status: number;
  body: string;
}

function request(admin: Endpoint, client: TlsClientIdentity, method: string, path: string, body?: { contentType: string; data: Buffer }, timeoutMs = 15_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: admin.host,
        port: admin.port,
        method,
        path,
        ca: admin.tlsCaCertPem,
        cert: client.certificatePem,
        key: client.privateKeyPem,
        // The certificate is checked against serverName when given (SNI too), else against host
        // (an IP address against the certificate's IP SANs).
        servername: admin.serverName,
        headers: body ? { 'content-type': body.contentType, 'content-length': body.data.length } : {},
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (body) req.write(body.data);
    req.end();
  });
}

function fabricError(answer: Answer): string {
  try {
    const parsed = JSON.parse(answer.body) as { error?: string };
    if (parsed.error) return parsed.error;
  } catch {
    // not JSON: use the text
  }
  return answer.body.trim() || `HTTP ${answer.status}`;
}

function toInfo(raw: Record<string, unknown>): OrdererChannelInfo {
  return {
    name: String(raw.name),
    status: String(raw.status ?? ''),
    consensusRelation: String(raw.consensusRelation ?? ''),
    height: Number(raw.height ?? 0),
  };
}

async function call(admin: Endpoint, client: TlsClientIdentity, channelName: string | null, what: string, method: string, path: string, body?: { contentType: string; data: Buffer }): Promise<Answer> {
  try {
    return await request(admin, client, method, path, body);
  } catch (err) {
    // Also a TLS refusal: the orderer closes the handshake for a client certificate it does not trust.
    throw new FabricNodeUnreachableError(`Orderer admin endpoint ${nodeName(admin)} did not answer ${what}: ${(err as Error).message}`, nodeName(admin), channelName);
  }
}

function refused(admin: Endpoint, channelName: string | null, doing: string, answer: Answer): FabricRefusedError {
  const said = fabricError(answer);
  return new FabricRefusedError(`Orderer ${nodeName(admin)} refused to ${doing} (HTTP ${answer.status}): ${said}`, nodeName(admin), channelName, answer.status, said, answer.status === 400 ? 400 : 409);
}

export async function ordererChannel(admin: Endpoint, client: TlsClientIdentity, channelName: string): Promise<OrdererChannelInfo | null> {
  const answer = await call(admin, client, channelName, `the read of channel "${channelName}"`, 'GET', `${basePath}/${encodeURIComponent(channelName)}`);
  if (answer.status === 404) return null;
  if (answer.status !== 200) throw refused(admin, channelName, `show channel "${channelName}"`, answer);
  return toInfo(JSON.parse(answer.body));
}

export async function listOrdererChannels(admin: Endpoint, client: TlsClientIdentity): Promise<OrdererChannelInfo[]> {
  const answer = await call(admin, client, null, 'the channel list', 'GET', basePath);
  if (answer.status !== 200) throw refused(admin, null, 'list its channels', answer);
  const listed = (JSON.parse(answer.body) as { channels?: { name: string }[] | null }).channels ?? [];
  const infos = await Promise.all(listed.map((c) => ordererChannel(admin, client, c.name)));
  return infos.filter((i): i is OrdererChannelInfo => i !== null);
}

export async function joinOrderer(admin: Endpoint, client: TlsClientIdentity, channelName: string, genesisBlock: Uint8Array): Promise<OrdererChannelInfo> {
  const nameProblem = channelNameProblem(channelName);
  if (nameProblem) throw new ValidationError(`Channel name "${channelName}" ${nameProblem}.`, [{ field: 'channelName', message: nameProblem }]);
  const blockChannel = configBlockChannel(genesisBlock);
  if (blockChannel !== channelName) {
    throw new ValidationError(`The genesis block is of channel "${blockChannel}", not "${channelName}".`, [{ field: 'genesisBlock', message: `of channel ${blockChannel}` }]);
  }

  const boundary = `----lnm${randomBytes(12).toString('hex')}`;
  const data = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="config-block"; filename="${channelName}.block"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.from(genesisBlock),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const answer = await call(admin, client, channelName, `the join of channel "${channelName}"`, 'POST', basePath, { contentType: `multipart/form-data; boundary=${boundary}`, data });
  if (answer.status === 201) return toInfo(JSON.parse(answer.body));
  if (answer.status === 405 || answer.status === 409) {
    const existing = await ordererChannel(admin, client, channelName);
    if (existing) return existing;
  }
  throw refused(admin, channelName, `join channel "${channelName}"`, answer);
}

export async function leaveOrderer(admin: Endpoint, client: TlsClientIdentity, channelName: string): Promise<{ removed: boolean }> {
  const answer = await call(admin, client, channelName, `the removal of channel "${channelName}"`, 'DELETE', `${basePath}/${encodeURIComponent(channelName)}`);
  if (answer.status === 204 || answer.status === 200) return { removed: true };
  if (answer.status === 404) return { removed: false };
  throw refused(admin, channelName, `remove channel "${channelName}"`, answer);
}
