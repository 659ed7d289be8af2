// The SmartBFT options a consortium channel may have, checked the same way at creation (POST
// /networks/consortium smartBftOptions) and when changed (PUT .../config smartBftOptions):
// durations are Go durations above zero, counts integers above zero, and the SmartBFT library's
// own rules (types.Configuration.Validate) hold, so Fabric does not refuse them later.
//   smartBftOptionIssues(options, prefix = 'smartBftOptions') -> FieldIssue[] (empty: valid)
import type { FieldIssue } from '../shared/errors.ts';
import { goDurationMs } from '../shared/goDuration.ts';
import type { SmartBftOptions } from './consortiumPorts.ts';

export function smartBftOptionIssues(options: SmartBftOptions, prefix = 'smartBftOptions'): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const [k, v] of Object.entries(options)) {
    const field = `${prefix}.${k}`;
    if (typeof v === 'string' && !((goDurationMs(v) ?? 0) > 0)) issues.push({ field, message: 'a duration such as 200ms, 5s or 1m0s' });
    if (typeof v === 'number' && (!Number.isSafeInteger(v) || v < 1)) issues.push({ field, message: 'an integer greater than zero' });
  }
  if (issues.length) return issues;
  const ms = (d: string) => goDurationMs(d)!;
  if (options.requestMaxBytes > options.requestBatchMaxBytes) issues.push({ field: `${prefix}.requestMaxBytes`, message: 'must not exceed requestBatchMaxBytes' });
  if (options.requestBatchMaxCount > options.requestBatchMaxBytes) issues.push({ field: `${prefix}.requestBatchMaxCount`, message: 'must not exceed requestBatchMaxBytes' });
  if (ms(options.requestForwardTimeout) > ms(options.requestComplainTimeout)) issues.push({ field: `${prefix}.requestForwardTimeout`, message: 'must not exceed requestComplainTimeout' });
  if (ms(options.requestComplainTimeout) > ms(options.requestAutoRemoveTimeout)) issues.push({ field: `${prefix}.requestComplainTimeout`, message: 'must not exceed requestAutoRemoveTimeout' });
  if (ms(options.viewChangeResendInterval) > ms(options.viewChangeTimeout)) issues.push({ field: `${prefix}.viewChangeResendInterval`, message: 'must not exceed viewChangeTimeout' });
  return issues;
}
