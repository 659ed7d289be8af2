// x-source parameters of plugins: values the service supplies instead of the caller.
//   consortium-peer: the caller gives peer node ids (one, or a list); each becomes
//     {ExternalEndpoint, TLSCertPath}, the peer organization's TLS CA written into the plugin's
//     files and mounted read-only at /lnm-plugin.
//   consortium-key: the caller gives the id of a client identity key (an organization's ADMIN
//     key or a node's IDENTITY key); it becomes {MspID, CertPath, KeyPath}, its certificate and
//     private key written into the plugin's files (the key 0600). Only keys of the database
//     provider can be written out: a Vault or KMS key is a 422 saying so.
// Resolving reads only; the files are written by writeSourceFiles once the parameters passed
// the descriptor's schema, so a refused deploy leaves nothing behind.
import type { AppDeps } from '../../application/deps.ts';
import type { PluginDescriptor } from '../../domain/plugins/pluginDescriptor.ts';
import type { VolumeMount } from '../../domain/plugins/pluginTemplate.ts';
import type { PluginFile } from '../../domain/plugins/pluginPorts.ts';
import { AppError, NotFoundError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { IdentityNotExportableError } from '../../domain/consortium/consortiumPorts.ts';
import { sourcedParameters } from '../../domain/plugins/pluginDescriptor.ts';
import { getNode } from '../../projections/nodes.ts';

export const PLUGIN_FILES_TARGET = '/lnm-plugin';

export interface ResolvedSources {
  parameters: Record<string, unknown>;
  /** Files to write for the plugin (relative to its files directory), mounted at PLUGIN_FILES_TARGET. */
  files: PluginFile[];
}

function consortium(deps: AppDeps) {
  if (!deps.consortium) throw new AppError(503, 'UNAVAILABLE', 'Consortium networks are not available on this server.');
  return deps.consortium;
}

const positiveId = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) > 0;

async function resolvePeers(deps: AppDeps, name: string, given: unknown, issues: FieldIssue[], files: PluginFile[]): Promise<unknown> {
  const ids = Array.isArray(given) ? given : [given];
  if (!ids.length || !ids.every(positiveId)) {
    issues.push({ field: `parameters.${name}`, message: 'x-source consortium-peer: give the id of a consortium peer node, or a list of them' });
    return given;
  }
  const resolved = [];
  for (const id of ids as number[]) {
    const node = await getNode(deps.pool, id);
    if (!node || node.platform !== 'CONSORTIUM' || node.role !== 'peer' || !node.consortiumConfig || node.organizationId === null) {
      issues.push({ field: `parameters.${name}`, message: `node ${id} is not a consortium peer` });
      continue;
    }
    const msp = await consortium(deps).credentials.organizationMsp(node.organizationId);
    files.push({ path: `peers/${id}-tls-ca.pem`, content: msp.tlsCaCertPem });
    resolved.push({ ExternalEndpoint: node.consortiumConfig.externalEndpoint, TLSCertPath: `${PLUGIN_FILES_TARGET}/peers/${id}-tls-ca.pem` });
  }
  return Array.isArray(given) ? resolved : resolved[0];
}

async function resolveKey(deps: AppDeps, name: string, given: unknown, issues: FieldIssue[], files: PluginFile[]): Promise<unknown> {
  const field = `parameters.${name}`;
  if (!positiveId(given)) {
    issues.push({ field, message: "x-source consortium-key: give the id of a client identity key (an organization's adminKeyId, or a consortium node's identity key)" });
    return given;
  }
  let identity;
  try {
    identity = await consortium(deps).credentials.exportIdentity(given);
  } catch (err) {
    if (err instanceof NotFoundError) issues.push({ field, message: `key ${given} does not exist` });
    else if (err instanceof IdentityNotExportableError) throw new AppError(422, err.code, err.message, { details: [{ field, message: err.details?.[0]?.message ?? 'its private key cannot leave its provider' }] });
    else if (err instanceof ValidationError) issues.push(...(err.details ?? []).map((d) => ({ field, message: `${err.message} (${d.message})` })));
    else throw err;
    return given;
  }
  const dir = `keys/${identity.keyId}`;
  files.push({ path: `${dir}/cert.pem`, content: identity.certificatePem }, { path: `${dir}/key.pem`, content: identity.privateKeyPem, secret: true });
  return { MspID: identity.mspId, CertPath: `${PLUGIN_FILES_TARGET}/${dir}/cert.pem`, KeyPath: `${PLUGIN_FILES_TARGET}/${dir}/key.pem` };
}

/** The parameters with every x-source value resolved, and the files they point at (not written yet). */
export async function resolveSources(deps: AppDeps, d: PluginDescriptor, input: Record<string, unknown>): Promise<ResolvedSources> {
  const sourced = Object.entries(sourcedParameters(d));
  const issues: FieldIssue[] = [];
  const files: PluginFile[] = [];
  const parameters: Record<string, unknown> = { ...input };
  for (const [name, source] of sourced) {
    const given = Object.hasOwn(input, name) ? input[name] : undefined;
    if (given === undefined) continue; // the schema says whether it is required
    parameters[name] = source === 'consortium-key' ? await resolveKey(deps, name, given, issues, files) : await resolvePeers(deps, name, given, issues, files);
  }
  if (issues.length) throw new ValidationError('Some x-source parameters could not be resolved.', issues);
  return { parameters, files };
}

/** Writes the resolved files into the plugin's private directory; the mount that gives them to its containers, read-only. */
export async function writeSourceFiles(deps: AppDeps, name: string, files: PluginFile[]): Promise<VolumeMount[]> {
  if (!files.length || !deps.plugins) return [];
  const source = await deps.plugins.writeFiles(name, files);
  return [{ Source: source, Target: PLUGIN_FILES_TARGET, ReadOnly: true }];
}
