/** What the settings listeners record before they ack (the intake kinds and their payloads); the handlers take them from the intake. */
import type { SettingsCommand } from './command.js';
import type { SettingsChange } from './store.js';

/** Kinds of intake the settings feature handles. */
export const SETTINGS_INTAKE = { command: 'settings.command', save: 'settings.save' } as const;

/** `/docs-settings …` (already checked), recorded. */
export interface CommandIntake {
  teamId: string;
  channel: string;
  user: string;
  responseUrl: string;
  /** Every form is recorded (help and mistakes too): only full members may see any of it. */
  command: SettingsCommand;
}

/** The settings modal's submission (already checked), recorded. */
export interface SaveIntake {
  teamId: string;
  channel: string;
  user: string;
  change: SettingsChange;
}
