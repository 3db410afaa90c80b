// The inventory of a read session's current context (what the CLI reports; the extension can call it
// on its ledger's session, passing the live floor and the anchors it has folded).
import type { Session, SessionShape } from "@context-fold/ledger-reader";
import { buildInventory } from "./build-inventory.js";
import { contextBlocks, contextBlocksStreamed } from "./context-blocks.js";
import type { ContextInventory, InventoryOptions } from "./types.js";

/** `buildInventory(contextBlocks(session))` with the session's cwd. */
export function sessionInventory(session: Session, options: InventoryOptions = {}): ContextInventory {
  const cwd = options.cwd ?? session.header.cwd;
  return buildInventory(contextBlocks(session), cwd === undefined ? options : { ...options, cwd });
}

/** `sessionInventory` from a session's shape and one streamed read (see `contextBlocksStreamed`): same output. */
export async function sessionInventoryStreamed(shape: SessionShape, options: InventoryOptions = {}): Promise<ContextInventory> {
  const cwd = options.cwd ?? shape.session.header.cwd;
  return buildInventory(await contextBlocksStreamed(shape), cwd === undefined ? options : { ...options, cwd });
}
