// The user directory: one aggregate (stream `users`) for all users, so that the invariants
// that span users — unique usernames, at least one ADMIN — are checked atomically by one
// decider under the stream's optimistic concurrency. A deployment has tens or hundreds of
// users, so reading the stream per command is cheap.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import type { Role } from './roles.ts';

export const USERS_STREAM = 'users';

export interface UserRecord {
  userId: number;
  username: string;
  role: Role;
  email: string | null;
  passwordHash: string;
  /** Set for a user signed in through OpenID Connect: the account is this (issuer, subject). */
  external?: ExternalIdentity;
  createdAt: string;
  updatedAt: string;
}

export interface ExternalIdentity {
  issuer: string;
  subject: string;
}

export interface UserDirectoryState {
  users: Record<string, UserRecord>;
}

export type UserEvent =
  | { type: 'UserCreated'; data: { userId: number; username: string; role: Role; email: string | null; passwordHash: string; external?: ExternalIdentity; at: string } }
  | { type: 'UserUpdated'; data: { userId: number; before: { username: string; email: string | null }; after: { username: string; email: string | null }; at: string } }
  | { type: 'UserPasswordChanged'; data: { userId: number; passwordHash: string; byUserId: number | null; at: string } }
  | { type: 'UserRoleChanged'; data: { userId: number; username: string; from: Role; to: Role; at: string } }
  | { type: 'UserDeleted'; data: { userId: number; username: string; role: Role; at: string } };

export type UserCommand =
  | { type: 'CreateUser'; userId: number; username: string; role: Role; email: string | null; passwordHash: string; external?: ExternalIdentity; at: string }
  | { type: 'UpdateUser'; userId: number; username?: string; email?: string | null; at: string }
  | { type: 'ChangePassword'; userId: number; passwordHash: string; byUserId: number | null; at: string }
  | { type: 'ChangeRole'; userId: number; role: Role; at: string }
  | { type: 'DeleteUser'; userId: number; at: string };

const byName = (s: UserDirectoryState, username: string) =>
  Object.values(s.users).find((u) => u.username.toLowerCase() === username.toLowerCase());

/** The user linked to an OpenID Connect account: by issuer and subject, never by e-mail. */
export const byExternal = (s: UserDirectoryState, x: ExternalIdentity) =>
  Object.values(s.users).find((u) => u.external?.issuer === x.issuer && u.external?.subject === x.subject);

function existing(s: UserDirectoryState, userId: number): UserRecord {
  const u = s.users[userId];
  if (!u) throw new NotFoundError('User', userId);
  return u;
}

const admins = (s: UserDirectoryState) => Object.values(s.users).filter((u) => u.role === 'ADMIN').length;

export function evolve(s: UserDirectoryState, e: UserEvent): UserDirectoryState {
  const users = { ...s.users };
  switch (e.type) {
    case 'UserCreated':
      users[e.data.userId] = { userId: e.data.userId, username: e.data.username, role: e.data.role, email: e.data.email, passwordHash: e.data.passwordHash, ...(e.data.external ? { external: e.data.external } : {}), createdAt: e.data.at, updatedAt: e.data.at };
      break;
    case 'UserUpdated':
      users[e.data.userId] = { ...users[e.data.userId], ...e.data.after, updatedAt: e.data.at };
      break;
    case 'UserPasswordChanged':
      users[e.data.userId] = { ...users[e.data.userId], passwordHash: e.data.passwordHash, updatedAt: e.data.at };
      break;
    case 'UserRoleChanged':
      users[e.data.userId] = { ...users[e.data.userId], role: e.data.to, updatedAt: e.data.at };
      break;
    case 'UserDeleted':
      delete users[e.data.userId];
      break;
    default:
      assertNever(e);
  }
  return { users };
}

export function decide(c: UserCommand, s: UserDirectoryState): UserEvent[] {
  switch (c.type) {
    case 'CreateUser': {
      if (byName(s, c.username)) throw new ConflictError(`The username "${c.username}" is taken.`, { field: 'username' }, 'DUPLICATE_USERNAME');
      if (c.external && byExternal(s, c.external)) throw new ConflictError('This OpenID Connect account is linked to a user already.', { issuer: c.external.issuer }, 'DUPLICATE_EXTERNAL_IDENTITY');
      return [{ type: 'UserCreated', data: { userId: c.userId, username: c.username, role: c.role, email: c.email, passwordHash: c.passwordHash, ...(c.external ? { external: c.external } : {}), at: c.at } }];
    }
    case 'UpdateUser': {
      const u = existing(s, c.userId);
      const after = { username: c.username ?? u.username, email: c.email === undefined ? u.email : c.email };
      if (after.username !== u.username) {
        const other = byName(s, after.username);
        if (other && other.userId !== u.userId) throw new ConflictError(`The username "${after.username}" is taken.`, { field: 'username' }, 'DUPLICATE_USERNAME');
      }
      if (after.username === u.username && after.email === u.email) return [];
      return [{ type: 'UserUpdated', data: { userId: u.userId, before: { username: u.username, email: u.email }, after, at: c.at } }];
    }
    case 'ChangePassword':
      existing(s, c.userId);
      return [{ type: 'UserPasswordChanged', data: { userId: c.userId, passwordHash: c.passwordHash, byUserId: c.byUserId, at: c.at } }];
    case 'ChangeRole': {
      const u = existing(s, c.userId);
      if (u.role === c.role) return [];
      if (u.role === 'ADMIN' && admins(s) === 1) throw new ConflictError('This is the last ADMIN; make another user ADMIN first.', { userId: u.userId }, 'LAST_ADMIN');
      return [{ type: 'UserRoleChanged', data: { userId: u.userId, username: u.username, from: u.role, to: c.role, at: c.at } }];
    }
    case 'DeleteUser': {
      const u = existing(s, c.userId);
      if (u.role === 'ADMIN' && admins(s) === 1) throw new ConflictError('This is the last ADMIN and cannot be deleted; make another user ADMIN first.', { userId: u.userId }, 'LAST_ADMIN');
      return [{ type: 'UserDeleted', data: { userId: u.userId, username: u.username, role: u.role, at: c.at } }];
    }
    default:
      return assertNever(c);
  }
}

export const userDirectory: Decider<UserDirectoryState, UserCommand, UserEvent> = {
  initialState: () => ({ users: {} }),
  evolve,
  decide,
};

/** Username rules, shared by create and update. */
export function usernameIssue(username: string): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{1,63}$/.test(username)) return 'must be 2-64 characters: letters, digits, dot, underscore, @ or hyphen, starting with a letter or digit';
  return null;
}

export function assertUsername(username: string): void {
  const issue = usernameIssue(username);
  if (issue) throw new ValidationError(`username ${issue}.`, [{ field: 'username', message: issue }]);
}
