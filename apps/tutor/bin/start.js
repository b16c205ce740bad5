#!/usr/bin/env node
// Standalone tutor server: `npm run build` (tsc -b) first, then `node apps/tutor/bin/start.js`.
import { main } from "../dist/main.js";

await main(process.env);
