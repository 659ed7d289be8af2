// The first ADMIN: from ADMIN_USERNAME / ADMIN_PASSWORD, or generated on the first start and
// printed once (to the terminal, not to the structured log). Only when no user was ever created.
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../domain/shared/commandHandler.ts';
import { USERS_STREAM, userDirectory } from '../domain/users/userDirectory.ts';
import { WrongExpectedVersionError } from '../domain/shared/errors.ts';
import { passwordPolicyIssues } from '../domain/users/passwordPolicy.ts';
import type { Projector } from '../projections/projector.ts';
import type { PasswordHasher } from '../domain/users/ports.ts';
import type { Logger } from '../application/deps.ts';

export interface BootstrapInput {
  store: EventStore;
  projector: Projector;
  passwords: PasswordHasher;
  nextId: (kind: string) => Promise<number>;
  config: { adminUsername: string; adminPassword: string | null };
  log: Logger;
}

export async function bootstrapFirstAdmin({ store, projector, passwords, nextId, config, log }: BootstrapInput): Promise<void> {
  const { version } = await loadState(store, USERS_STREAM, userDirectory);
  if (version > 0) return;
  const generated = !config.adminPassword;
  const password = config.adminPassword ?? randomBytes(18).toString('base64url');
  const issues = passwordPolicyIssues(password, { username: config.adminUsername, field: 'ADMIN_PASSWORD' });
  if (issues.length) throw new Error(`ADMIN_PASSWORD ${issues.map((i) => i.message).join('; ')}`);
  const passwordHash = await passwords.hash(password);
  try {
    const at = new Date().toISOString();
    const userId = await nextId('user');
    const r = await handleCommand(store, USERS_STREAM, userDirectory, { type: 'CreateUser', userId, username: config.adminUsername, role: 'ADMIN', email: null, passwordHash, at }, {
      metadata: { timestamp: at, actor: null, reason: 'first start' },
      newId: randomUUID,
      expectedVersion: 0,
    });
    if (r.lastPosition) await projector.waitFor(r.lastPosition);
  } catch (err) {
    if (err instanceof WrongExpectedVersionError) return; // another server created it first
    throw err;
  }
  log.info({ username: config.adminUsername, generatedPassword: generated }, 'first ADMIN created');
  if (generated) {
    process.stderr.write(
      `\n  First start: created ADMIN user "${config.adminUsername}" with password:\n\n      ${password}\n\n  It is shown only this once. Log in and change it (POST /api/v1/auth/change-password).\n\n`,
    );
  }
}
