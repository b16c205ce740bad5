import { describeSqlBounds } from "./sql-bounds-cases.js";

describeSqlBounds({ label: "SQLite" });
