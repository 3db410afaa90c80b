// Every command module, in the order `--help` lists them. Add one line per command module.
import type { Command } from "commander";
import { registerRecords } from "./records.js";
import { registerHindsight } from "./hindsight.js";
import { registerGarden } from "./garden.js";

export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  registerRecords,
  registerHindsight,
  registerGarden,
];
