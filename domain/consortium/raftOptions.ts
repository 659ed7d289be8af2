// The etcdraft options a consortium channel may be changed to (PUT .../config raftOptions),
// checked as Fabric 2.5 checks the ConsensusType metadata of a config update
// (orderer/consensus/etcdraft/util.go VerifyConfigMetadata), so the orderer does not refuse it
// later: tickInterval a Go duration above zero; electionTick, heartbeatTick, maxInflightBlocks and
// snapshotIntervalSize integers above zero that fit the proto's uint32; electionTick above
// heartbeatTick. (Fabric reads a zero snapshotIntervalSize as its 16 MB default; here it is refused
// so that what is asked is what the channel holds.)
//   raftOptionIssues(options, prefix = 'raftOptions') -> FieldIssue[] (empty: valid)
import type { FieldIssue } from '../shared/errors.ts';
import { goDurationMs } from '../shared/goDuration.ts';
import type { RaftOptions } from './consortiumPorts.ts';

const UINT32_MAX = 4_294_967_295;

export function raftOptionIssues(options: RaftOptions, prefix = 'raftOptions'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (typeof options.tickInterval !== 'string' || !((goDurationMs(options.tickInterval) ?? 0) > 0)) issues.push({ field: `${prefix}.tickInterval`, message: 'a duration above zero such as 500ms or 1s' });
  for (const k of ['electionTick', 'heartbeatTick', 'maxInflightBlocks', 'snapshotIntervalSize'] as const) {
    const v = options[k];
    if (!Number.isSafeInteger(v) || v < 1 || v > UINT32_MAX) issues.push({ field: `${prefix}.${k}`, message: `an integer from 1 to ${UINT32_MAX}` });
  }
  if (issues.length) return issues;
  if (options.electionTick <= options.heartbeatTick) issues.push({ field: `${prefix}.electionTick`, message: `must be greater than heartbeatTick (${options.heartbeatTick})` });
  return issues;
}
