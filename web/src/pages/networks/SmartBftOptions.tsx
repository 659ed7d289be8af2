// The SmartBFT options of a BFT channel (POST /networks/consortium smartBftOptions), shared by the
// consortium network create page and the quick start. Each field left empty is not sent: the
// service gives it its default (shown as the placeholder, docs/consortium.md "SmartBFT"). A refused
// option is said beside its field (the API names it smartBftOptions.<name>).
import { FieldError, invalid } from '../../components/states';

type Kind = 'count' | 'duration' | 'flag';
const OPTIONS: Array<[name: string, label: string, kind: Kind, fallback: string]> = [
  ['requestBatchMaxCount', 'Most requests in a block', 'count', '100'],
  ['requestBatchMaxBytes', 'Most bytes of requests in a block', 'count', '10485760'],
  ['requestBatchMaxInterval', 'Longest wait for a block to fill', 'duration', '200ms'],
  ['incomingMessageBufferSize', 'Messages buffered from each other orderer', 'count', '200'],
  ['requestPoolSize', 'Requests waiting to be ordered', 'count', '100000'],
  ['requestForwardTimeout', 'Before a follower forwards a request to the leader', 'duration', '5s'],
  ['requestComplainTimeout', 'Before a follower complains about the leader', 'duration', '20s'],
  ['requestAutoRemoveTimeout', 'Before a request not ordered is dropped', 'duration', '3m0s'],
  ['requestMaxBytes', 'Largest single request (bytes)', 'count', '10485760'],
  ['viewChangeResendInterval', 'Between resent view change messages', 'duration', '5s'],
  ['viewChangeTimeout', 'Before a view change is given up', 'duration', '20s'],
  ['leaderHeartbeatTimeout', 'Silence from the leader before a view change', 'duration', '1m0s'],
  ['leaderHeartbeatCount', 'Heartbeats per leader heartbeat timeout', 'count', '10'],
  ['collectTimeout', 'Collecting the state after a view change', 'duration', '1s'],
  ['syncOnStart', 'Sync with the others when an orderer starts', 'flag', 'false'],
  ['speedUpViewChange', 'Start a view change on f + 1 complaints', 'flag', 'false'],
];

export type SmartBftValues = Record<string, string | boolean>;

/** The options typed (or ticked), as the API takes them; undefined when none was. */
export function smartBftBody(values: SmartBftValues): Record<string, number | string | boolean> | undefined {
  const out: Record<string, number | string | boolean> = {};
  for (const [name, , kind] of OPTIONS) {
    const v = values[name];
    if (kind === 'flag') {
      if (v === true) out[name] = true;
    } else if (typeof v === 'string' && v.trim() !== '') out[name] = kind === 'count' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim();
  }
  return Object.keys(out).length ? out : undefined;
}

export function SmartBftOptionsFields({ values, onChange, error }: { values: SmartBftValues; onChange: (v: SmartBftValues) => void; error: unknown }) {
  return (
    <fieldset>
      <legend>SmartBFT options (empty: the default shown)</legend>
      {OPTIONS.map(([name, label, kind, fallback]) => {
        const field = `smartBftOptions.${name}`;
        return kind === 'flag' ? (
          <label key={name} className="inline">
            <input type="checkbox" checked={values[name] === true} onChange={(e) => onChange({ ...values, [name]: e.target.checked })} /> {label} (<code>{name}</code>)
            <FieldError error={error} field={field} />
          </label>
        ) : (
          <label key={name}>
            {label} (<code>{name}</code>)
            <input {...invalid(error, field)} inputMode={kind === 'count' ? 'numeric' : undefined} maxLength={20} placeholder={fallback} value={typeof values[name] === 'string' ? (values[name] as string) : ''} onChange={(e) => onChange({ ...values, [name]: e.target.value })} />
            <FieldError error={error} field={field} />
          </label>
        );
      })}
    </fieldset>
  );
}
