// What a skill may be: its name and sizes. Node-free: the skills schema, which the web UI's
// typecheck reads, takes its limits from here.
export const SKILL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Largest SKILL.md, front matter included. */
export const MAX_SKILL_BYTES = 1024 * 1024;
export const MAX_DESCRIPTION_LENGTH = 1024;
