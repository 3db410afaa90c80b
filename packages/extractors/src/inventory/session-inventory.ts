// The inventory of a read session's current context (what the CLI reports; the extension can call it
// on its ledger's session, passing the live floor and the anchors it has folded).
import type { Session } from "@context-fold/ledger-reader";
import { buildInventory } from "./build-inventory.js";
import { contextBlocks } from "./context-blocks.js";
import type { ContextInventory, InventoryOptions } from "./types.js";

/** `buildInventory(contextBlocks(session))` with the session's cwd. */
export function sessionInventory(session: Session, options: InventoryOptions = {}): ContextInventory {
  const cwd = options.cwd ?? session.header.cwd;
  return buildInventory(contextBlocks(session), cwd === undefined ? options : { ...options, cwd });
}
