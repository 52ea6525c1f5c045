// Crash points for the kill -9 tests (test/chaos/): AGENT_SERVICE_CRASH_AT="point:marker,..." makes
// the process SIGKILL itself when it reaches `point` while handling a message whose text contains
// `marker`. Unset (always, outside those tests) it does nothing. Points: inbox-before-record,
// inbox-after-record (recorded, not yet acknowledged to the platform), inbox-before-send (the answer
// recorded, not yet sent), inbox-after-send (sent and marked answered, not yet finished).
const wanted = (process.env['AGENT_SERVICE_CRASH_AT'] ?? '')
  .split(',')
  .map((entry) => entry.trim())
  .filter((entry) => entry.includes(':'))
  .map((entry) => {
    const at = entry.indexOf(':');
    return { point: entry.slice(0, at), marker: entry.slice(at + 1) };
  });

export function crashPoint(point: string, text: string): void {
  if (wanted.length === 0) return;
  if (wanted.some((entry) => entry.point === point && entry.marker !== '' && text.includes(entry.marker)))
    process.kill(process.pid, 'SIGKILL');
}
