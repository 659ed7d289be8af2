// Validator-set arithmetic for BFT evm networks (SPEC "Limits": fault tolerance and validator
// voting).
//  - f = floor((n-1)/3) faulty validators are tolerated; 4 validators are needed to tolerate 1.
//  - A change may never leave fewer than 2f+1 validators (f of the current set), nor fewer
//    than 2 (a single validator produces blocks only as a development chain, and 0 none).
//  - A vote passes when more than 50% of the current validators cast it; besu applies it at
//    the next epoch boundary.
// Note: besu's own commit quorum is ceil(2n/3), which equals 2f+1 only when n = 3f+1.
import { getAddress } from 'ethers';
import { ValidationError, type FieldIssue } from '../shared/errors.ts';

export const MIN_VALIDATORS_AFTER_CHANGE = 2;

export function faultTolerance(validatorCount: number): number {
  return validatorCount < 1 ? 0 : Math.floor((validatorCount - 1) / 3);
}

/** 2f+1 for the given set size. */
export function requiredValidators(validatorCount: number): number {
  return 2 * faultTolerance(validatorCount) + 1;
}

/** Smallest number of votes that is more than half of the validators. */
export function votesNeeded(validatorCount: number): number {
  return Math.floor(validatorCount / 2) + 1;
}

export function votePasses(validatorCount: number, votesInFavour: number): boolean {
  return validatorCount > 0 && votesInFavour * 2 > validatorCount;
}

/** First epoch boundary after `blockNumber` (SPEC: a passed vote applies there); besu also clears pending votes at each boundary. */
export function nextEpochBoundary(blockNumber: number, epochLength: number): number {
  if (!Number.isSafeInteger(epochLength) || epochLength < 1) {
    throw new ValidationError('epochlength must be a positive integer.', [{ field: 'epochlength', message: 'must be a positive integer' }]);
  }
  return (Math.floor(blockNumber / epochLength) + 1) * epochLength;
}

export interface ValidatorChange {
  add?: string[];
  remove?: string[];
}

/**
 * The validator set after `change`, or a ValidationError saying why the change is refused.
 * Addresses are compared case-insensitively and returned checksummed.
 */
export function applyValidatorChange(current: string[], change: ValidatorChange): string[] {
  const issues: FieldIssue[] = [];
  const norm = (a: string, field: string): string | undefined => {
    try {
      return getAddress(a);
    } catch {
      issues.push({ field, message: `${JSON.stringify(a)} is not an address` });
      return undefined;
    }
  };
  const before = current.map((a, i) => norm(a, `current[${i}]`)).filter((a): a is string => !!a);
  const set = new Set(before);
  (change.remove ?? []).forEach((raw, i) => {
    const a = norm(raw, `remove[${i}]`);
    if (a && !set.delete(a)) issues.push({ field: `remove[${i}]`, message: `${a} is not a validator` });
  });
  (change.add ?? []).forEach((raw, i) => {
    const a = norm(raw, `add[${i}]`);
    if (a && set.has(a)) issues.push({ field: `add[${i}]`, message: `${a} is already a validator` });
    else if (a) set.add(a);
  });
  if (issues.length) throw new ValidationError(`Invalid validator change: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);

  const n = before.length;
  const after = set.size;
  const floor = Math.max(requiredValidators(n), MIN_VALIDATORS_AFTER_CHANGE);
  if (after < floor && after < n) {
    const f = faultTolerance(n);
    const message =
      after < MIN_VALIDATORS_AFTER_CHANGE
        ? `would leave ${after} validator${after === 1 ? '' : 's'}; fewer than ${MIN_VALIDATORS_AFTER_CHANGE} validators produce no blocks`
        : `would leave ${after} of ${n} validators; with f = floor((${n}-1)/3) = ${f} at least 2f+1 = ${2 * f + 1} must remain`;
    throw new ValidationError(`Validator change refused: it ${message}.`, [{ field: 'validators', message }], 'VALIDATOR_QUORUM');
  }
  return [...set];
}
