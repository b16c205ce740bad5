/** Per-user limits on the embedded SQLite file (the cases of `user-limits-cases.ts`). */
import { userLimitCases } from "./user-limits-cases.js";

userLimitCases("SQLite");
