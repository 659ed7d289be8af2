import type pg from 'pg';
import type { Projection } from './projection.ts';
import type { PluginDescriptor } from '../domain/plugins/pluginDescriptor.ts';

export const pluginsProjection: Projection = {
  name: 'plugins',
  handles: ['PluginInstalled', 'PluginUpdated', 'PluginEnabled', 'PluginDisabled', 'PluginRemoved'],
  tables: ['plugins'],
  apply(e) {
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case 'PluginInstalled':
        return [{ text: `INSERT INTO plugins (name, descriptor, status, installed_at, updated_at) VALUES ($1, $2, 'installed', $3, $3)`, values: [d.name, JSON.stringify(d.descriptor), d.at] }];
      case 'PluginUpdated':
        return [{ text: 'UPDATE plugins SET descriptor = $2, updated_at = $3 WHERE name = $1', values: [d.name, JSON.stringify(d.descriptor), d.at] }];
      case 'PluginEnabled':
        return [{ text: `UPDATE plugins SET status = 'enabled', parameters = $2, updated_at = $3 WHERE name = $1`, values: [d.name, JSON.stringify(d.parameters), d.at] }];
      case 'PluginDisabled':
        return [{ text: `UPDATE plugins SET status = 'disabled', updated_at = $2 WHERE name = $1`, values: [d.name, d.at] }];
      case 'PluginRemoved':
        return [{ text: 'DELETE FROM plugins WHERE name = $1', values: [d.name] }];
      default:
        return [];
    }
  },
};

export interface PluginRow {
  name: string;
  descriptor: PluginDescriptor;
  parameters: Record<string, unknown> | null;
  status: 'installed' | 'enabled' | 'disabled';
  installedAt: string;
  updatedAt: string;
}

const toRow = (r: Record<string, any>): PluginRow => ({ name: r.name, descriptor: r.descriptor, parameters: r.parameters, status: r.status, installedAt: new Date(r.installed_at).toISOString(), updatedAt: new Date(r.updated_at).toISOString() });

export async function listPlugins(pool: pg.Pool, limit: number, offset: number): Promise<{ items: PluginRow[]; total: number }> {
  const total = Number((await pool.query('SELECT count(*) FROM plugins')).rows[0].count);
  const r = await pool.query('SELECT * FROM plugins ORDER BY name LIMIT $1 OFFSET $2', [limit, offset]);
  return { items: r.rows.map(toRow), total };
}

export async function getPlugin(pool: pg.Pool, name: string): Promise<PluginRow | null> {
  const r = await pool.query('SELECT * FROM plugins WHERE name = $1', [name]);
  return r.rows[0] ? toRow(r.rows[0]) : null;
}
