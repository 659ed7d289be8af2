// The background work that is not per node, cut into pieces, each owned through its own lease
// (`work:<piece>`, adapters/postgres/leases.ts shardedWork, the fair-share rule the node shards
// use): three instances spread the pieces, each on exactly one live instance at a time. A piece
// is a set of sagas (saga.piece names it; their names, checkpoints and timers are those they had
// under the one `background-work` lease, so nothing moved) and, for some pieces, a loop of the
// composition root (the webhook delivery worker, the block feed, the resource monitor, the
// managed Prometheus).
export const WORK_PIECES = ['expiry', 'webhooks', 'notifications', 'backups', 'host-checks', 'block-feed', 'resource-monitor', 'metrics-stack'] as const;

export type WorkPiece = (typeof WORK_PIECES)[number];

export const workPieceLease = (piece: WorkPiece): string => `work:${piece}`;

export const METRICS_STACK_LEASE = workPieceLease('metrics-stack');
