// The one way a create that makes several things checks what it needs before it makes any of
// them (the evm network create, the consortium and ledgerX quick starts): the programs its nodes
// run, the names and ports it will take, the key provider. Every check runs, nothing is written,
// and a refusal is one 4xx listing every problem found: the status and code of the first problem
// (a taken name stays a 409 NAME_TAKEN), its message followed by the others', and every problem's
// field in details. A check that fails for another reason than a refusal (a database error) is
// not a refusal: it is thrown as is.
import { AppError, ValidationError, type FieldIssue } from '../domain/shared/errors.ts';

/** A program a feature needs is not on this host: a 400 naming the program and how to provide it. */
export function missingProgram(field: string, message: string): ValidationError {
  return new ValidationError(message, [{ field, message }], 'PROGRAM_MISSING');
}

const isRefusal = (err: unknown): err is AppError => err instanceof AppError && err.status >= 400 && err.status < 500;

/** A 503 UNAVAILABLE of a check (a program missing here) is a refusal of this request here: a 400 PROGRAM_MISSING. */
function asRefusal(err: unknown): AppError | null {
  if (isRefusal(err)) return err;
  if (err instanceof AppError && err.status === 503 && err.code === 'UNAVAILABLE') return new ValidationError(err.message, err.details ?? [{ field: 'request', message: err.message }], 'PROGRAM_MISSING');
  return null;
}

export class Preflight {
  private readonly problems: AppError[] = [];

  /** Runs one check; a refusal it throws is kept, and the next checks still run. */
  async check<T>(run: () => Promise<T> | T): Promise<T | undefined> {
    try {
      return await run();
    } catch (err) {
      const refusal = asRefusal(err);
      if (!refusal) throw err;
      this.problems.push(refusal);
      return undefined;
    }
  }

  /** Adds a refusal found without a check (a program looked up, ...). */
  refuse(problem: AppError): void {
    this.problems.push(problem);
  }

  get failed(): boolean {
    return this.problems.length > 0;
  }

  /** Throws the refusal when any check refused: the first problem's status and code, all of them said. */
  finish(): void {
    if (!this.problems.length) return;
    const [first, ...rest] = this.problems;
    if (!rest.length) throw first;
    const details: FieldIssue[] = this.problems.flatMap((p) => p.details ?? [{ field: typeof p.extra?.field === 'string' ? p.extra.field : 'request', message: p.message }]);
    throw new AppError(first.status, first.code, [first.message, ...rest.map((p) => p.message)].join(' Also: '), { details, extra: first.extra });
  }
}

/** Runs `checks` with one Preflight and refuses (4xx, nothing written) when any refused. */
export async function preflight(checks: (p: Preflight) => Promise<void>): Promise<void> {
  const p = new Preflight();
  await checks(p);
  p.finish();
}
