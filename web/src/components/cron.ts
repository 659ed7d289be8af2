// A backup schedule's cron expression (six fields, seconds first, UTC, as the service reads it in
// adapters/backups/cronSchedule.ts) in words (cronstrue) and its next run times, computed by the
// same cron package the service schedules with, so the page and the scheduler agree.
import cronstrue from 'cronstrue';
import { CronTime } from 'cron/dist/time.js';

/** The expression in words, or null when it cannot be read. */
export function cronInWords(expression: string): string | null {
  try {
    return `${cronstrue.toString(expression.trim(), { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false })} (UTC)`;
  } catch {
    return null;
  }
}

/** The next `count` run times strictly after `after`, or [] when the expression cannot be read. */
export function nextCronRuns(expression: string, count: number, after: Date = new Date()): Date[] {
  try {
    const time = new CronTime(expression.trim(), 'UTC');
    const runs: Date[] = [];
    let from = after;
    for (let i = 0; i < count; i++) {
      const next = time.getNextDateFrom(from).toJSDate();
      runs.push(next);
      from = next;
    }
    return runs;
  } catch {
    return [];
  }
}
