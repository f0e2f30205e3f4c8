#!/usr/bin/env node
// The `vigil` command: runs the TypeScript sources through tsx (a runtime dependency), so a fresh
// clone works after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
