// The inventory of a read session's current context (what the CLI reports; the extension can call it
// on its ledger's session, passing the live floor and the anchors it has folded).
import { readSession, type Session, type SessionShape } from "@context-fold/ledger-reader";
import { buildInventory, InventoryAccumulator, type InventoryResultOptions } from "./build-inventory.js";
import { contextBlocks, type ContextPlan, contextPlan, forEachContextBlock } from "./context-blocks.js";
import type { ContextInventory, InventoryOptions } from "./types.js";

/** `buildInventory(contextBlocks(session))` with the session's cwd. */
export function sessionInventory(session: Session, options: InventoryOptions = {}): ContextInventory {
  const cwd = options.cwd ?? session.header.cwd;
  return buildInventory(contextBlocks(session), cwd === undefined ? options : { ...options, cwd });
}

/**
 * What a streamed inventory keeps of a session's shape (the shape itself can then be let go): the
 * context plan (see `contextPlan`), the file and its cwd.
 */
export interface InventoryPlan {
  readonly path: string;
  readonly cwd: string | undefined;
  /** Undefined when the lineage runs backwards in the file: read whole. */
  readonly context: ContextPlan | undefined;
}

export function inventoryPlan(shape: SessionShape): InventoryPlan {
  const { session } = shape;
  return { path: session.path, cwd: session.header.cwd, context: contextPlan(shape) };
}

/**
 * `sessionInventory` from a plan and one streamed read: each context block is taken into the inventory
 * as the stream meets it and its text let go (`InventoryAccumulator`), so memory holds a few numbers per
 * context block, not the blocks. Same output; `how.lazyItems` makes the items as they are read.
 */
export async function inventoryAlong(plan: InventoryPlan, options: InventoryOptions = {}, how: InventoryResultOptions = {}): Promise<ContextInventory> {
  const cwd = options.cwd ?? plan.cwd;
  const withCwd = cwd === undefined ? options : { ...options, cwd };
  if (plan.context === undefined) return buildInventory(contextBlocks(await readSession(plan.path)), withCwd);
  const acc = new InventoryAccumulator(withCwd, plan.context.blocks);
  await forEachContextBlock(plan.context, (block) => acc.add(block));
  return acc.result(how);
}

/** `sessionInventory` from a session's shape and one streamed read (see `inventoryAlong`): same output. */
export function sessionInventoryStreamed(shape: SessionShape, options: InventoryOptions = {}, how: InventoryResultOptions = {}): Promise<ContextInventory> {
  return inventoryAlong(inventoryPlan(shape), options, how);
}
