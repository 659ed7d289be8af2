// A consortium node's rolling upgrade to a newer Fabric release (POST /nodes/{id}/upgrade): the
// releases this service finds (GET /nodes/defaults/consortium-peer's fabricReleases; a docker
// node: dockerFabricReleases, its release images; a node-host node: ?hostId='s hostFabricReleases)
// newer than the node's, one chosen, a confirmation saying the node is stopped and started again with its ledger
// kept and that one node is upgraded at a time; the answer's steps and heights are shown (also once
// no newer release is left).
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, getJson, unwrap } from '../../api/client';
import { ActionError } from '../../components/states';
import { Can } from '../../session';

const newer = (a: string, b: string) => {
  const [x, y] = [a, b].map((v) => v.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0));
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};

export function NodeUpgrade({ nodeId, name, fabricVersion, engine, hostId }: { nodeId: number; name: string; fabricVersion: string; engine: string; hostId?: number | null }) {
  const qc = useQueryClient();
  // Where the node runs decides the releases: the process engine's programs, the docker engine's
  // release images, or those on its node host (a Docker host, a cluster's nodes).
  const releases = useQuery({
    queryKey: ['fabric-releases', hostId ?? null],
    queryFn: () => getJson<{ fabricReleases?: string[]; dockerFabricReleases?: string[]; hostFabricReleases?: string[] }>(`/api/v1/nodes/defaults/consortium-peer${hostId ? `?hostId=${hostId}` : ''}`),
  });
  const offered = hostId ? releases.data?.hostFabricReleases : engine === 'docker' ? releases.data?.dockerFabricReleases : releases.data?.fabricReleases;
  const choices = (offered ?? []).filter((v) => newer(v, fabricVersion));
  const [target, setTarget] = useState('');
  const [confirming, setConfirming] = useState(false);
  const chosen = target || choices[0] || '';
  const upgrade = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodes/{id}/upgrade', { params: { path: { id: nodeId } }, body: { fabricVersion: chosen } })),
    onSuccess: () => {
      setConfirming(false);
      void qc.invalidateQueries({ queryKey: ['node', nodeId] });
    },
  });
  // The answer stays shown once the node runs the newest release (no choice is left then).
  const outcome = upgrade.data ? (
    <p className="verdict valid" role="status">
      Upgraded to Fabric {upgrade.data.to_version}: {upgrade.data.steps.join('; ')}.
    </p>
  ) : null;
  if (!choices.length) {
    return (
      <>
        <p className="muted">Runs Fabric {fabricVersion}; no newer release is found here.</p>
        {outcome}
      </>
    );
  }
  return (
    <Can permission="NODE_UPDATE">
      <label>
        Upgrade to{' '}
        <select value={chosen} onChange={(e) => setTarget(e.target.value)} disabled={upgrade.isPending}>
          {choices.map((v) => (
            <option key={v} value={v}>
              Fabric {v}
            </option>
          ))}
        </select>
      </label>{' '}
      {!confirming ? (
        <button type="button" onClick={() => setConfirming(true)} disabled={upgrade.isPending}>
          Upgrade
        </button>
      ) : (
        <div className="card" role="group" aria-label="Confirm upgrade">
          <p>
            Stop {name}, switch it from Fabric {fabricVersion} to {chosen} and start it again with its ledger kept, then wait until it has caught up with its channels?
            One node is upgraded at a time; the other nodes of its channels must be running.
          </p>
          <div className="actions">
            <button type="button" className="primary" disabled={upgrade.isPending} onClick={() => upgrade.mutate()}>
              {upgrade.isPending ? 'Upgrading…' : 'Upgrade now'}
            </button>
            <button type="button" disabled={upgrade.isPending} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ActionError error={upgrade.error} />
      {outcome}
    </Can>
  );
}
