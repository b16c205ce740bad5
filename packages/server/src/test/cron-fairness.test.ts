/** The cron scheduler between users on the embedded SQLite file (the case of `cron-fairness-cases.ts`). */
import { cronTurnsCase } from "./cron-fairness-cases.js";

cronTurnsCase("SQLite");
