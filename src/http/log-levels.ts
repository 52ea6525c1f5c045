// The log levels by name, as pino numbers them. Node-free: the server-logs schema, which the web UI's
// typecheck reads, takes its level names from here.
export const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LevelName = keyof typeof LEVELS;
