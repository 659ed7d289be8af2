// x-source parameters of plugins: values the service supplies instead of the caller.
//   consortium-peer: the caller gives peer node ids (one, or a list); each becomes
//     {ExternalEndpoint, TLSCertPath}, the peer organization's TLS CA written into the plugin's
//     files and mounted read-only at /lnm-plugin.
//   consortium-key: would give {MspID, CertPath, KeyPath} of an organization's admin identity;
//     its private key stays inside its key provider (adminSigner), so it is refused (422) for now.
import type { AppDeps } from '../deps.ts';
import type { PluginDescriptor } from '../../domain/plugins/pluginDescriptor.ts';
import type { VolumeMount } from '../../domain/plugins/pluginTemplate.ts';
import { AppError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { sourcedParameters } from '../../domain/plugins/pluginDescriptor.ts';
import { getNode } from '../../projections/nodes.ts';

export const PLUGIN_FILES_TARGET = '/lnm-plugin';

export async function resolveSources(deps: AppDeps, d: PluginDescriptor, input: Record<string, unknown>): Promise<{ parameters: Record<string, unknown>; mounts: VolumeMount[] }> {
  const sourced = Object.entries(sourcedParameters(d));
  if (!sourced.length) return { parameters: input, mounts: [] };
  const keys = sourced.filter(([, v]) => v === 'consortium-key').map(([k]) => k);
  if (keys.length) throw new AppError(422, 'X_SOURCE_UNSUPPORTED', `x-source consortium-key (${keys.join(', ')}) is not resolved by this server yet: an organization's admin key stays inside its key provider.`, { details: keys.map((k) => ({ field: `parameters.${k}`, message: 'x-source consortium-key is not resolved yet' })) });
  const issues: FieldIssue[] = [];
  const files: Array<{ path: string; content: string }> = [];
  const parameters: Record<string, unknown> = { ...input };
  for (const [name] of sourced) {
    const given = input[name];
    if (given === undefined) continue; // the schema says whether it is required
    const ids = Array.isArray(given) ? given : [given];
    if (!ids.length || !ids.every((x) => Number.isSafeInteger(x) && (x as number) > 0)) {
      issues.push({ field: `parameters.${name}`, message: 'x-source consortium-peer: give the id of a consortium peer node, or a list of them' });
      continue;
    }
    const resolved = [];
    for (const id of ids as number[]) {
      const node = await getNode(deps.pool, id);
      if (!node || node.platform !== 'CONSORTIUM' || node.role !== 'peer' || !node.consortiumConfig || node.organizationId === null) {
        issues.push({ field: `parameters.${name}`, message: `node ${id} is not a consortium peer` });
        continue;
      }
      if (!deps.consortium) throw new AppError(503, 'UNAVAILABLE', 'Consortium networks are not available on this server.');
      const msp = await deps.consortium.credentials.organizationMsp(node.organizationId);
      files.push({ path: `peers/${id}-tls-ca.pem`, content: msp.tlsCaCertPem });
      resolved.push({ ExternalEndpoint: node.consortiumConfig.externalEndpoint, TLSCertPath: `${PLUGIN_FILES_TARGET}/peers/${id}-tls-ca.pem` });
    }
    parameters[name] = Array.isArray(given) ? resolved : resolved[0];
  }
  if (issues.length) throw new ValidationError('Some x-source parameters could not be resolved.', issues);
  if (!files.length || !deps.plugins) return { parameters, mounts: [] };
  const source = await deps.plugins.writeFiles(d.metadata.name, files);
  return { parameters, mounts: [{ Source: source, Target: PLUGIN_FILES_TARGET, ReadOnly: true }] };
}
