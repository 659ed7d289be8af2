// Where nodes run (docs/hosts.md): this service's machine, a registered node host (a Docker
// Engine or a Kubernetes cluster, GET /hosts) or a host picked by labels. One choice for every
// form that places nodes: a node create (config.hostId / config.hostLabels) and the network
// creates (placement.hostId / placement.hostLabels), and a chaincode deploy's server (placement.hostId
// of a Kubernetes cluster only: `only="kubernetes"`). Shown only with such hosts registered and HOST_READ.
import { useState } from 'react';
import { useHosts } from '../api/queries';
import { useSession } from '../session';
import { parseLabels } from './labels';
import { FieldError, invalid } from './states';

export interface PlacementChoice {
  where: string;
  setWhere(where: string): void;
  hostLabels: string;
  setHostLabels(text: string): void;
  labels: ReturnType<typeof parseLabels>;
  hosts: ReturnType<typeof useHosts>;
  /** {hostId} or {hostLabels} as the API takes it; undefined: this service's machine. */
  placement: { hostId: number } | { hostLabels: Record<string, string> } | undefined;
  /** Whether the choice can be sent (labels chosen: at least one, well formed). */
  ready: boolean;
}

export function usePlacement(enabled = true): PlacementChoice {
  const { can } = useSession();
  const hosts = useHosts(can('HOST_READ') && enabled);
  const [where, setWhere] = useState(''); // '': this machine, 'labels', or a host id
  const [hostLabels, setHostLabels] = useState('');
  const labels = parseLabels(hostLabels);
  const placement = !enabled || where === '' ? undefined : where === 'labels' ? { hostLabels: labels.labels } : { hostId: Number(where) };
  const ready = where !== 'labels' || (!labels.error && Object.keys(labels.labels).length > 0);
  return { where, setWhere, hostLabels, setHostLabels, labels, hosts, placement, ready };
}

/**
 * The host choice; `field` is where the API names the fields in its refusals (config or placement).
 * `only="kubernetes"`: the registered Kubernetes clusters only, no choice by labels (what a
 * chaincode server's placement takes); `defaultLabel` names what no choice means.
 */
export function PlacementFields({ choice, error, field, idPrefix, label = 'Where it runs', only, defaultLabel = "This service's machine" }: { choice: PlacementChoice; error: unknown; field: 'config' | 'placement'; idPrefix: string; label?: string; only?: 'kubernetes'; defaultLabel?: string }) {
  const items = (choice.hosts.data?.items ?? []).filter((h) => !only || h.kind === only);
  if (!items.length) return null;
  return (
    <>
      <label>
        {label}
        <select {...invalid(error, `${field}.hostId`)} value={choice.where} onChange={(e) => choice.setWhere(e.target.value)}>
          <option value="">{defaultLabel}</option>
          {items.map((h) => (
            <option key={h.id} value={h.id}>
              Host {h.name} ({h.kind === 'kubernetes' ? 'Kubernetes cluster, ' : ''}
              {h.status.reachable ? 'reachable' : 'unreachable'}
              {h.capacity.maxNodes !== null ? `, at most ${h.capacity.maxNodes} nodes` : ''})
            </option>
          ))}
          {only ? null : <option value="labels">A host picked by labels</option>}
        </select>
        <FieldError error={error} field={`${field}.hostId`} />
      </label>
      {choice.where === 'labels' ? (
        <label>
          Host labels
          <input required placeholder="zone=b" value={choice.hostLabels} onChange={(e) => choice.setHostLabels(e.target.value)} aria-invalid={choice.labels.error ? true : undefined} aria-describedby={`${idPrefix}-host-labels-help`} {...invalid(error, `${field}.hostLabels`)} />
          <FieldError error={error} field={`${field}.hostLabels`} />
          <small id={`${idPrefix}-host-labels-help`}>{choice.labels.error ?? 'key=value pairs separated by commas: among the reachable hosts carrying every label and below their capacity, the one with the fewest nodes.'}</small>
        </label>
      ) : null}
    </>
  );
}
