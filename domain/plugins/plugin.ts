// One installed plugin: its descriptor, and whether it is deployed (enabled) or stopped
// (disabled). Stream plugin-<name>; a removed plugin's name may be installed again.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import type { PluginDescriptor } from './pluginDescriptor.ts';

export const pluginStream = (name: string) => `plugin-${name}`;

export type PluginStatus = 'installed' | 'enabled' | 'disabled';

export type PluginState =
  | { status: 'absent' }
  | { status: PluginStatus; descriptor: PluginDescriptor; parameters: Record<string, unknown> | null };

export type PluginEvent =
  | { type: 'PluginInstalled'; data: { name: string; descriptor: PluginDescriptor; at: string } }
  | { type: 'PluginUpdated'; data: { name: string; descriptor: PluginDescriptor; at: string } }
  | { type: 'PluginEnabled'; data: { name: string; parameters: Record<string, unknown>; at: string } }
  | { type: 'PluginDisabled'; data: { name: string; at: string } }
  | { type: 'PluginRemoved'; data: { name: string; at: string } };

export type PluginCommand =
  | { type: 'InstallPlugin'; descriptor: PluginDescriptor; at: string }
  | { type: 'UpdatePlugin'; descriptor: PluginDescriptor; at: string }
  | { type: 'EnablePlugin'; name: string; parameters: Record<string, unknown>; at: string }
  | { type: 'DisablePlugin'; name: string; at: string }
  | { type: 'RemovePlugin'; name: string; at: string };

export const plugin: Decider<PluginState, PluginCommand, PluginEvent> = {
  initialState: () => ({ status: 'absent' }),
  evolve(s, e) {
    switch (e.type) {
      case 'PluginInstalled':
        return { status: 'installed', descriptor: e.data.descriptor, parameters: null };
      case 'PluginUpdated':
        return s.status === 'absent' ? s : { ...s, descriptor: e.data.descriptor };
      case 'PluginEnabled':
        return s.status === 'absent' ? s : { ...s, status: 'enabled', parameters: e.data.parameters };
      case 'PluginDisabled':
        return s.status === 'absent' ? s : { ...s, status: 'disabled' };
      case 'PluginRemoved':
        return { status: 'absent' };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    const name = c.type === 'InstallPlugin' || c.type === 'UpdatePlugin' ? c.descriptor.metadata.name : c.name;
    if (c.type === 'InstallPlugin') {
      if (s.status !== 'absent') throw new ConflictError(`A plugin named ${name} is already installed; replace its descriptor to update it.`, { name });
      return [{ type: 'PluginInstalled', data: { name, descriptor: c.descriptor, at: c.at } }];
    }
    if (s.status === 'absent') throw new NotFoundError('Plugin', name);
    switch (c.type) {
      case 'UpdatePlugin':
        if (s.status === 'enabled') throw new ConflictError(`Plugin ${name} is deployed; stop it before updating its descriptor.`, { name, status: s.status });
        return [{ type: 'PluginUpdated', data: { name, descriptor: c.descriptor, at: c.at } }];
      case 'EnablePlugin':
        return [{ type: 'PluginEnabled', data: { name, parameters: c.parameters, at: c.at } }];
      case 'DisablePlugin':
        if (s.status !== 'enabled') throw new ConflictError(`Plugin ${name} is not running (${s.status}).`, { name, status: s.status });
        return [{ type: 'PluginDisabled', data: { name, at: c.at } }];
      case 'RemovePlugin':
        return [{ type: 'PluginRemoved', data: { name, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
