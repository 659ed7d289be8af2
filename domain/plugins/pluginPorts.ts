// What the plugin routes need from the outside: Docker Compose over the local Docker Engine, one
// compose project per plugin, and the descriptors this project ships.

export interface PluginServiceState {
  service: string;
  /** Docker's state: running, exited, created, ... */
  state: string;
  /** Docker's words: "Up 3 minutes", "Exited (0) 2 seconds ago". */
  status: string;
  containerId: string;
}

/** A file the service writes for a plugin's containers; `secret` ones (private keys) are 0600. */
export interface PluginFile {
  path: string;
  content: string;
  secret?: boolean;
}

/** One service of a deployed plugin with the last lines of its container's output. */
export interface PluginServiceLogs extends PluginServiceState {
  lines: string[];
}

export interface PluginRuntime {
  /** Why plugins cannot run here (no Docker Engine, no Compose), naming what is missing; null when they can. */
  unavailable(): Promise<string | null>;
  /**
   * Writes files the plugin's containers read (certificates; `secret` ones 0600) under its
   * directory (0700, the service's user only), replacing earlier ones, and returns that
   * directory's host path (mounted read-only). remove() deletes them.
   */
  writeFiles(name: string, files: PluginFile[]): Promise<string>;
  /** Writes the rendered compose file and brings the project up; on failure takes it down again. */
  deploy(name: string, compose: string): Promise<void>;
  stop(name: string): Promise<void>;
  resume(name: string): Promise<void>;
  /** Takes the project down (containers, networks, volumes) and deletes its files. */
  remove(name: string): Promise<void>;
  services(name: string): Promise<PluginServiceState[]>;
  /** Each service's container (one service, when named) with its last `tail` lines, key material masked; [] when none exists. */
  logs(name: string, opts: { service?: string; tail: number }): Promise<PluginServiceLogs[]>;
  /**
   * Follows one service's container output live: its last `tail` lines, then each new line, key
   * material masked, until close() or the container ends. 404 (NotFoundError) without such a
   * service's container.
   */
  followLogs(name: string, service: string, onLine: (line: string) => void, tail: number): Promise<{ close(): void }>;
  /** The descriptors shipped with the service, as text. */
  shipped(): Promise<Array<{ file: string; text: string }>>;
}
