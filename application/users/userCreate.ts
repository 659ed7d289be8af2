// Creating a user: the username rule and the password policy checked, the password hashed, then
// CreateUser on the user directory (409 when the username is taken). POST /users and the first
// ADMIN of a new installation (bin/bootstrap.ts) both go through here.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { USERS_STREAM, assertUsername, userDirectory } from '../../domain/users/userDirectory.ts';
import { passwordPolicyIssues } from '../../domain/users/passwordPolicy.ts';
import { assertAccountDelegable } from '../../domain/users/delegation.ts';
import type { Role } from '../identity.ts';

export interface UserRequest {
  username: string;
  password: string;
  /** Default VIEWER. */
  role?: Role;
  email?: string | null;
}

export interface UserCreateOptions {
  /** The field a password issue names (the command line names its environment variable). */
  passwordField?: string;
  /** 0: only when no user was ever created (a WrongExpectedVersionError otherwise). */
  expectedVersion?: number;
}

export async function createUser(input: CommandInput, req: UserRequest, opts: UserCreateOptions = {}): Promise<number> {
  const { deps } = input;
  assertUsername(req.username);
  // Asked with an API key: only an account the key could have been itself (domain/users/delegation.ts).
  assertAccountDelegable(input.identity, req.role ?? 'VIEWER');
  const field = opts.passwordField ?? 'password';
  const issues = passwordPolicyIssues(req.password, { username: req.username, field });
  if (issues.length) throw new ValidationError(`${field} ${issues.map((i) => i.message).join('; ')}.`, issues);
  const userId = await deps.nextId('user');
  const passwordHash = await deps.security.passwords.hash(req.password);
  await runCommand(input, USERS_STREAM, userDirectory, { type: 'CreateUser', userId, username: req.username, role: req.role ?? 'VIEWER', email: req.email ?? null, passwordHash, at: deps.clock().toISOString() }, { expectedVersion: opts.expectedVersion });
  return userId;
}
