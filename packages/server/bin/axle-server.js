#!/usr/bin/env node
// Committed, so the first npm install links the bin; the code it runs is built by `npm run build`.
import { launch } from '../dist/launch/launcher.js';

await launch();
