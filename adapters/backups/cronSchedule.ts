// Cron expressions of backup schedules: six fields, seconds first, read by the cron package.
import { CronTime, validateCronExpression } from 'cron';

/** null when valid; otherwise why not, in words. */
export function cronIssue(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 6) return `needs six space-separated fields, seconds first (second minute hour day-of-month month day-of-week); got ${fields.length}`;
  const v = validateCronExpression(expression.trim());
  return v.valid ? null : String(v.error?.message ?? 'not a cron expression');
}

/** The first run time strictly after `after`. */
export function nextCronRun(expression: string, after: Date): Date {
  return new CronTime(expression.trim(), 'UTC').getNextDateFrom(after).toJSDate();
}
