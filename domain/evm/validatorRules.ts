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

/**
 * Clique (EIP-225) signer votes: a signer is added or removed in the first block in which more
 * than half of the current signers have voted the same way (each sealer votes in the blocks it
 * seals: the block's `miner` field names the vote target, its nonce says add or remove), not at
 * an epoch boundary; every epoch boundary clears the votes still pending. A change may not
 * leave the network without a signer. The set after the change, or a ValidationError saying why
 * it is refused.
 */
export function applyCliqueSignerChange(current: string[], change: ValidatorChange): string[] {
  const n = current.length;
  const issues: FieldIssue[] = [];
  const set = new Set(current.map((a) => getAddress(a)));
  const norm = (raw: string, field: string): string | undefined => {
    try {
      return getAddress(raw);
    } catch {
      issues.push({ field, message: `${JSON.stringify(raw)} is not an address` });
      return undefined;
    }
  };
  (change.remove ?? []).forEach((raw, i) => {
    const a = norm(raw, `remove[${i}]`);
    if (a && !set.delete(a)) issues.push({ field: `remove[${i}]`, message: `${a} is not a signer` });
  });
  (change.add ?? []).forEach((raw, i) => {
    const a = norm(raw, `add[${i}]`);
    if (a && set.has(a)) issues.push({ field: `add[${i}]`, message: `${a} is already a signer` });
    else if (a) set.add(a);
  });
  if (issues.length) throw new ValidationError(`Invalid signer change: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  if (set.size < 1 && n > 0) {
    const message = 'would leave no signer; a Clique network needs at least one';
    throw new ValidationError(`Signer change refused: it ${message}.`, [{ field: 'validators', message }], 'VALIDATOR_QUORUM');
  }
  return [...set];
}

/** The Clique voting rule in words, for answers. */
export function cliqueVoteRule(signerCount: number, epochLength: number): string {
  return `Clique (EIP-225): each sealer votes in the blocks it seals; the change applies in the first block in which more than half of the ${signerCount} signers (${votesNeeded(signerCount)}) have voted for it, and votes still pending are cleared at every epoch boundary (every ${epochLength} blocks).`;
}
