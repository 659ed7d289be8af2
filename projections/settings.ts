import type pg from 'pg';
import type { Projection } from './projection.ts';
import { defaultAuditSettings, defaultGeneralSettings, type AuditSettings, type GeneralSettings } from '../domain/settings/settings.ts';

export const settingsProjection: Projection = {
  name: 'settings',
  handles: ['SettingsUpdated', 'AuditSettingsUpdated'],
  tables: ['settings_current'],
  apply(e) {
    const column = e.type === 'SettingsUpdated' ? 'general' : 'audit';
    const other = e.type === 'SettingsUpdated' ? 'audit' : 'general';
    const otherDefault = e.type === 'SettingsUpdated' ? defaultAuditSettings() : defaultGeneralSettings();
    return [
      {
        text: `INSERT INTO settings_current (id, ${column}, ${other}, version, updated_at) VALUES (1, $1, $2, $3, $4)
               ON CONFLICT (id) DO UPDATE SET ${column} = EXCLUDED.${column}, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`,
        values: [JSON.stringify(e.data.after), JSON.stringify(otherDefault), e.version, e.metadata.timestamp],
      },
    ];
  },
};

export interface CurrentSettings {
  general: GeneralSettings;
  audit: AuditSettings;
  version: number;
  updatedAt: string | null;
}

export async function currentSettings(pool: pg.Pool): Promise<CurrentSettings> {
  const r = await pool.query('SELECT general, audit, version, updated_at FROM settings_current WHERE id = 1');
  if (!r.rows[0]) return { general: defaultGeneralSettings(), audit: defaultAuditSettings(), version: 0, updatedAt: null };
  return { general: { ...defaultGeneralSettings(), ...r.rows[0].general }, audit: { ...defaultAuditSettings(), ...r.rows[0].audit }, version: r.rows[0].version, updatedAt: new Date(r.rows[0].updated_at).toISOString() };
}
