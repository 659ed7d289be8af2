// The consortium quick start's checks, before it makes anything: the console's quick start (one
// organization or two, orderers, peers per organization, a channel) makes everything through the
// single routes, one after the other, and asks this first. Every check runs (application/
// preflight.ts) and one 4xx says every problem, nothing written: the network name and channel,
// the mspIds, the node names, the key provider of the organizations, and the Fabric programs of
// each role it will run (PROGRAM_MISSING naming them and LNM_FABRIC_BIN), or, placed on a node
// host or cluster (`placement`), that host for all of its nodes.
import type { CommandInput } from '../commands.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import { channelNameIssue } from '../../domain/consortium/consortiumNetwork.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { getConsortiumNetworkByName } from '../../projections/consortium/consortiumNetworks.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { defaultKeyProviderId, getKeyProvider } from '../../projections/keyProviders.ts';
import { checkNodeName } from '../evm/evmNodeCreate.ts';
import { missingProgram, preflight } from '../preflight.ts';
import { consortiumOf } from './consortiumContext.ts';
import { resolveFabricVersion } from './consortiumNodeCreate.ts';
import type { ConsortiumConsensus } from '../../domain/consortium/consortiumPorts.ts';
import { MIN_BFT_CONSENTERS, SMARTBFT_MIN_RELEASE } from '../../domain/consortium/consortiumDefaults.ts';
import type { NodePlacement } from '../../domain/hosts/nodeHosts.ts';
import { placeNode } from '../hosts/hostPlacement.ts';

export interface ConsortiumQuickstartPlan {
  name: string;
  channelName: string;
  organizations: Array<{ name: string; mspId: string; providerId?: number }>;
  nodes: Array<{ name: string; nodeType: 'CONSORTIUM_ORDERER' | 'CONSORTIUM_PEER' }>;
  engine?: NodeEngineKind;
  /** The Fabric release of its nodes (process engine); default: the newest found. */
  fabricVersion?: string;
  consensus?: ConsortiumConsensus;
  /** The node host or Kubernetes cluster all its peers and orderers go to (each POST /nodes then carries it in config). */
  placement?: NodePlacement;
}

export async function checkConsortiumQuickstart(input: CommandInput, plan: ConsortiumQuickstartPlan): Promise<void> {
  const { deps } = input;
  await preflight(async (p) => {
    const consortium = await p.check(() => consortiumOf(deps));
    await p.check(() => assertNetworkName(plan.name));
    await p.check(async () => {
      if (await getConsortiumNetworkByName(deps.pool, plan.name)) throw new ConflictError(`A consortium network named ${plan.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
    });
    const channelIssue = channelNameIssue(plan.channelName);
    if (channelIssue) p.refuse(new ValidationError(`channelName: ${channelIssue}.`, [{ field: 'channelName', message: channelIssue }]));
    const mspIds = plan.organizations.map((o) => o.mspId);
    if (new Set(mspIds).size !== mspIds.length) p.refuse(new ValidationError('organizations names an mspId twice.', [{ field: 'organizations', message: 'each mspId once' }]));
    for (const [i, o] of plan.organizations.entries()) {
      await p.check(async () => {
        if (await getOrganizationByMspId(deps.pool, o.mspId)) throw new ConflictError(`An organization with mspId ${o.mspId} already exists; the quick start makes its organizations.`, { field: `organizations[${i}].mspId` }, 'MSP_ID_TAKEN');
      });
      await p.check(async () => {
        const providerId = o.providerId ?? (await defaultKeyProviderId(deps.pool));
        if (!(await getKeyProvider(deps.pool, providerId))) throw new ValidationError(`Key provider ${providerId} does not exist.`, [{ field: `organizations[${i}].providerId`, message: 'no such key provider' }]);
      });
    }
    const names = plan.nodes.map((n) => n.name);
    if (new Set(names).size !== names.length) p.refuse(new ValidationError('nodes names a node twice.', [{ field: 'nodes', message: 'each name once' }]));
    for (const [i, n] of plan.nodes.entries()) {
      await p.check(() => checkNodeName(input, n.name).catch((err: unknown) => {
        if (!(err instanceof AppError)) throw err;
        throw new AppError(err.status, err.code, `${err.message} (node ${n.name} of the quick start)`, { details: [{ field: `nodes[${i}].name`, message: err.message }] });
      }));
    }
    const orderers = plan.nodes.filter((n) => n.nodeType === 'CONSORTIUM_ORDERER').length;
    if (plan.consensus === 'smartbft' && orderers < MIN_BFT_CONSENTERS) {
      p.refuse(new ValidationError(`smartbft needs at least ${MIN_BFT_CONSENTERS} orderers (n orderers tolerate floor((n - 1) / 3) faulty ones: 4 tolerate one); the quick start plans ${orderers}.`, [{ field: 'nodes', message: `${orderers} orderers; smartbft needs ${MIN_BFT_CONSENTERS}` }]));
    }
    // Placed: the host takes every node of the plan (as POST /nodes checks one), and its nodes run there from its images: nothing of Fabric is needed here.
    if (plan.placement) {
      const host = await p.check(() => placeNode(input, plan.placement!, plan.engine, { allowed: true }, { field: 'placement', engineField: 'engine', nodes: plan.nodes.length }));
      if (plan.consensus === 'smartbft' && host) p.refuse(new ValidationError(`smartbft needs orderers on Fabric ${SMARTBFT_MIN_RELEASE} or newer, and nodes on a host run its images, whose release is not recorded: place smartbft orderers on this machine.`, [{ field: 'consensus', message: 'not with placement' }]));
      return;
    }
    if (!consortium) return;
    const engine = plan.engine ?? consortium.defaults.engine;
    const version = await p.check(() => resolveFabricVersion(input, engine, plan.fabricVersion));
    if (plan.consensus === 'smartbft' && version !== undefined && (version === null || Number(version.split('.')[0]) < Number(SMARTBFT_MIN_RELEASE.split('.')[0]))) {
      p.refuse(new ValidationError(`smartbft needs orderers on Fabric ${SMARTBFT_MIN_RELEASE} or newer; the quick start's nodes would run ${version ? `Fabric ${version}` : 'no recorded release (docker image)'}: choose a 3.x fabricVersion.`, [{ field: 'fabricVersion', message: `smartbft needs Fabric ${SMARTBFT_MIN_RELEASE} or newer` }]));
    }
    const roles = [...new Set(plan.nodes.map((n) => (n.nodeType === 'CONSORTIUM_ORDERER' ? 'orderer' : 'peer') as 'orderer' | 'peer'))];
    const missing: string[] = [];
    for (const role of roles) {
      const available = await consortium.runtime.available(engine, role, version || undefined).catch((e: Error) => ({ ok: false as const, reason: e.message }));
      if (!available.ok) missing.push(`${role}: ${available.reason}`);
    }
    if (missing.length) p.refuse(missingProgram('programs', `Cannot run the quick start's Fabric nodes here (${engine} engine): ${missing.join('; ')}. Nothing was made.`));
  });
}
