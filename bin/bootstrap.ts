// The first ADMIN: from ADMIN_USERNAME / ADMIN_PASSWORD, or generated on the first start and
// printed once (to the terminal, not to the structured log). Only when no user was ever created.
import { randomBytes } from 'node:crypto';
import { loadState } from '../domain/shared/commandHandler.ts';
import { USERS_STREAM, userDirectory } from '../domain/users/userDirectory.ts';
import { ValidationError, WrongExpectedVersionError } from '../domain/shared/errors.ts';
import type { AppDeps } from '../application/deps.ts';
import { commandLineInput } from '../application/commands.ts';
import { createUser } from '../application/users/userCreate.ts';

export interface BootstrapInput {
  deps: AppDeps;
  config: { adminUsername: string; adminPassword: string | null };
}

export async function bootstrapFirstAdmin({ deps, config }: BootstrapInput): Promise<void> {
  const { version } = await loadState(deps.store, USERS_STREAM, userDirectory);
  if (version > 0) return;
  const generated = !config.adminPassword;
  const password = config.adminPassword ?? randomBytes(18).toString('base64url');
  try {
    await createUser(commandLineInput(deps, 'first start'), { username: config.adminUsername, password, role: 'ADMIN' }, { passwordField: 'ADMIN_PASSWORD', expectedVersion: 0 });
  } catch (err) {
    if (err instanceof WrongExpectedVersionError) return; // another server created it first
    if (err instanceof ValidationError) throw new Error(err.message);
    throw err;
  }
  deps.log.info({ username: config.adminUsername, generatedPassword: generated }, 'first ADMIN created');
  if (generated) {
    process.stderr.write(
      `\n  First start: created ADMIN user "${config.adminUsername}" with password:\n\n      ${password}\n\n  It is shown only this once. Log in and change it (POST /api/v1/auth/change-password).\n\n`,
    );
  }
}
