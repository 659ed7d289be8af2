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

/** What this start did about the first ADMIN: nothing (users exist), or created it with the given or a generated password. */
export type FirstAdmin = 'existing' | 'created' | 'generated';

export async function bootstrapFirstAdmin({ deps, config }: BootstrapInput): Promise<FirstAdmin> {
  const { version } = await loadState(deps.store, USERS_STREAM, userDirectory);
  if (version > 0) return 'existing';
  const generated = !config.adminPassword;
  const password = config.adminPassword ?? randomBytes(18).toString('base64url');
  try {
    await createUser(commandLineInput(deps, 'first start'), { username: config.adminUsername, password, role: 'ADMIN' }, { passwordField: 'ADMIN_PASSWORD', expectedVersion: 0 });
  } catch (err) {
    if (err instanceof WrongExpectedVersionError) return 'existing'; // another server created it first
    if (err instanceof ValidationError) throw new Error(err.message);
    throw err;
  }
  deps.log.info({ username: config.adminUsername, generatedPassword: generated }, 'first ADMIN created');
  if (generated) {
    process.stderr.write(
      `\n  First start: created ADMIN user "${config.adminUsername}" with password:\n\n      ${password}\n\n  It is shown only this once. Sign in and change it (your account menu, "Change password").\n\n`,
    );
  }
  return generated ? 'generated' : 'created';
}

/** The one plain line a start prints: where the console is and how to sign in. */
export function signInLine(url: string, adminUsername: string, firstAdmin: FirstAdmin): string {
  const how =
    firstAdmin === 'generated' ? `sign in as "${adminUsername}" with the password printed above (shown only this once)`
    : firstAdmin === 'created' ? `sign in as "${adminUsername}" with the ADMIN_PASSWORD it was started with`
    : `sign in with your user name and password (the first ADMIN is "${adminUsername}")`;
  return `Console: ${url}/ - ${how}. API: ${url}/api/v1, described at ${url}/api/swagger/\n`;
}
