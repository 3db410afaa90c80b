// Every command module, in the order `--help` lists them. Add one line per command module.
import type { Command } from "commander";
import { registerInspect } from "./inspect.js";
import { registerResolve } from "./resolve.js";
import { registerRecords } from "./records.js";
import { registerHindsight } from "./hindsight.js";
import { registerGarden } from "./garden.js";
import { registerIndex } from "./index-cmd.js";
import { registerVerify } from "./verify.js";
import { registerRecall } from "./recall.js";
import { registerFacts } from "./facts.js";
import { registerArtifacts } from "./artifacts.js";
import { registerCompact } from "./compact.js";
import { registerHandoff } from "./handoff.js";
import { registerInventory } from "./inventory.js";
import { registerEval } from "./eval.js";
import { registerCache } from "./cache.js";

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  registerInspect,
  registerResolve,
  registerRecords,
  registerHindsight,
  registerGarden,
  registerIndex,
  registerVerify,
  registerRecall,
  registerFacts,
  registerArtifacts,
  registerCompact,
  registerHandoff,
  registerInventory,
  registerEval,
  registerCache,
];
