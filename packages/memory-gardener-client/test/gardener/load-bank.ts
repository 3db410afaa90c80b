// Loads the generated example bank into a real local Hindsight bank through the public retain API,
// retires the rows meant to be already invalidated, and maps texts to the ids the server assigned.
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, generateExampleBank, type ExampleBank, type Memory } from "@context-fold/memory-gardener-client";

export const NOW = "2026-11-20T12:00:00.000Z";
export const BANK = "eng-memory";

export interface LoadedBank {
  readonly server: LocalBank;
  readonly client: HindsightClient;
  readonly bank: ExampleBank;
  readonly idOf: ReadonlyMap<string, string>;
  readonly textOf: ReadonlyMap<string, string>;
}

export async function loadExampleBank(seed = 11, count = 600): Promise<LoadedBank> {
  const server = await startLocalBank({ port: 0 });
  const client = new HindsightClient({ baseUrl: server.url, backoffMs: 5, maxBackoffMs: 50 });
  const bank = generateExampleBank(seed, count, NOW);
  await client.createBank(BANK, { name: BANK });
  for (let i = 0; i < bank.items.length; i += 200) await client.retain(BANK, bank.items.slice(i, i + 200));
  const idOf = new Map<string, string>();
  for await (const m of client.listAll(BANK, { state: "valid" })) idOf.set(m.text, m.id);
  const textOf = new Map([...idOf].map(([t, id]) => [id, t] as const));
  for (const text of bank.truth.toInvalidate) {
    const id = idOf.get(text);
    if (id === undefined) throw new Error(`retained text not listed: ${text}`);
    await client.patchMemory(BANK, id, { state: "invalidated", reason: "retired before the gardener ran" });
  }
  return { server, client, bank, idOf, textOf };
}

export async function stateOf(client: HindsightClient, id: string): Promise<Memory["state"]> {
  return (await client.getMemory(BANK, id)).state;
}
