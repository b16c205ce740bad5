import { MemorySaver } from "./memory-saver.js";
import { describeSaverConformance } from "./testing/index.js";

describeSaverConformance({
  name: "MemorySaver",
  create: ({ clock }) => new MemorySaver({ clock }),
});
