// Renewing a chaincode server's TLS certificate (docs/chaincode.md "Renewing the chaincode
// server's certificate"): the server's key gets a new certificate from the same issuer (the owner
// organization's TLS CA) with the same profile (names, usages, IDENTITY_VALIDITY_DAYS), recorded
// as certificate.renewed on the key (audited), then the server is restarted: its start writes the
// certificate where it reads it (its node directory's tls/, or its Secret on a cluster) and it
// serves the new one. The peers' connection.json (root_cert: that TLS CA) still verifies it, so
// nothing is installed again and the definition keeps its sequence.
//
// Refused, nothing renewed (409): no server yet (made at the first install); a plain-text server
// (tls false, or recorded before TLS); a server that is not running (stopped, e.g. an older
// version's after an upgrade, or starting/stopping); and a package that no longer matches what
// the peers installed (the organization's TLS CA or the peers' client certificate changed since:
// a certificate of the CA now might not verify against the root_cert the peers hold).
import { noteRecorded, requestMetadata, runCommand, type CommandInput } from '../commands.ts';
import { ConflictError } from '../../domain/shared/errors.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { renewCertificate } from '../../domain/keys/certificateRenewal.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { isChaincodeServer, type ConsortiumChaincodeNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';
import { getKey } from '../../projections/keys.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import { awaitSettled } from '../evm/evmNodeCreate.ts';
import { consortiumOf } from './consortiumContext.ts';
import { chaincodeOr404 } from './consortiumChaincodeSteps.ts';

/** Server states a renewal restarts from: running, or ran and failed (the restart brings it back). */
const RESTARTABLE = ['running', 'down', 'error'];

export interface ChaincodeServerRenewal {
  certificate: { key_id: number; purpose: 'TLS'; serial_number: string; previous_serial_number: string | null; not_after: string };
  server: NodeRow;
}

export async function renewChaincodeServerCertificate(input: CommandInput, chaincodeId: number): Promise<ChaincodeServerRenewal> {
  const { deps } = input;
  const chaincode = await chaincodeOr404(deps, chaincodeId);
  const what = `chaincode ${chaincode.name} ${chaincode.version}`;
  const row = chaincode.serverNodeId ? await getNode(deps.pool, chaincode.serverNodeId) : null;
  if (!chaincode.serverNodeId || !chaincode.serverAddress || !row) {
    throw new ConflictError(`The server of ${what} is not made yet (it is made at the first install): install or deploy the chaincode first. Nothing was renewed.`, { chaincodeId, missing: 'install' }, 'CHAINCODE_SERVER_MISSING');
  }
  const { state } = await loadState(deps.store, nodeStream(row.id), nodeAggregate);
  const server = state.node && isChaincodeServer(state.node) ? (state.node as unknown as ConsortiumChaincodeNodeCreatedData) : null;
  if (!server?.config.tls || server.tlsKeyId == null) {
    throw new ConflictError(
      `The server of ${what} (${row.name}) serves plain text: the version was recorded with tls false (or before TLS existed), so it has no certificate to renew. Deploy a new version (tls true, the default) to move it to TLS. Nothing was renewed.`,
      { chaincodeId, serverNodeId: row.id, tls: false }, 'CHAINCODE_SERVER_NO_TLS',
    );
  }
  if (!RESTARTABLE.includes(row.status)) {
    throw new ConflictError(
      `The server of ${what} (${row.name}) is ${row.status}, not running: a renewal restarts it to serve the new certificate. Start it first (start node ${row.name}, or invoke the chaincode, which starts it); a version replaced by an upgrade keeps its server stopped and needs no renewal. Nothing was renewed.`,
      { chaincodeId, serverNodeId: row.id, status: row.status }, 'CHAINCODE_SERVER_NOT_RUNNING',
    );
  }
  // The peers verify the new certificate with the root_cert of the package they installed: it
  // must still be this organization's TLS CA (and the client certificate the same), i.e. the
  // package built now is the one recorded.
  const tls = await consortiumOf(deps).credentials.chaincodeServerTls(server);
  const pkg = consortiumOf(deps).chaincodes.packageOf(`${chaincode.name}_${chaincode.version}`, chaincode.serverAddress, tls);
  if (pkg.packageId !== chaincode.packageId) {
    throw new ConflictError(
      `The TLS CA of organization ${server.mspId} or the peers' client certificate of ${what} changed since the peers installed its package (${chaincode.packageId}): a certificate issued now might not verify against the root_cert the peers hold. Deploy a new version, which gets a new package and new certificates. Nothing was renewed.`,
      { chaincodeId, installedPackageId: chaincode.packageId, packageIdNow: pkg.packageId }, 'CHAINCODE_PACKAGE_CHANGED',
    );
  }
  const previous = (await getKey(deps.pool, server.tlsKeyId))?.certificate?.serialNumber ?? null;
  const position = await renewCertificate({ store: deps.store, services: deps.keys, now: deps.clock(), metadata: requestMetadata(input), newId: deps.newId }, server.tlsKeyId, 'renewed');
  if (position) {
    noteRecorded(input);
    await deps.projector.waitFor(position);
  }
  // The restart writes the new certificate where the server reads it and starts it again.
  await runCommand(input, nodeStream(row.id), nodeAggregate, { type: 'StartNode', nodeId: row.id, restart: true, at: deps.clock().toISOString() });
  const after = (await awaitSettled(input, row.id)) ?? row;
  const key = await getKey(deps.pool, server.tlsKeyId);
  return {
    certificate: { key_id: server.tlsKeyId, purpose: 'TLS', serial_number: key?.certificate?.serialNumber ?? '', previous_serial_number: previous, not_after: key?.certificate?.notAfter ?? '' },
    server: after,
  };
}
