#!/usr/bin/env node
// Entry point of the command-line program: runs src/main.ts through tsx so no build step is needed.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';

register();
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
await import(main);
