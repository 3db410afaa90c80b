// The routes the bank serves: a path to a route (null: 404) and the methods each route allows (else 405).

export type Route =
  | { kind: "health" }
  | { kind: "version" }
  | { kind: "banks" }
  | { kind: "bank"; bankId: string }
  | { kind: "list"; bankId: string }
  | { kind: "memory"; bankId: string; memoryId: string }
  | { kind: "recall"; bankId: string }
  | { kind: "retain"; bankId: string }
  | { kind: "reflect"; bankId: string }
  | { kind: "document"; bankId: string; documentId: string }
  | { kind: "admin-faults" }
  | { kind: "admin-stats" };

export const METHODS: Record<Route["kind"], readonly string[]> = {
  health: ["GET"],
  version: ["GET"],
  banks: ["GET"],
  bank: ["GET", "PUT"],
  list: ["GET"],
  memory: ["GET", "PATCH"],
  recall: ["POST"],
  retain: ["POST"],
  reflect: ["POST"],
  document: ["GET"],
  "admin-faults": ["GET", "PUT"],
  "admin-stats": ["GET"],
};

export function route(pathname: string): Route | null {
  const parts = pathname.split("/").slice(1);
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  const [a, b, c, d, bankId, e, f, g] = decoded;
  if (decoded.length === 1 && a === "health") return { kind: "health" };
  if (decoded.length === 1 && a === "version") return { kind: "version" };
  if (decoded.length === 2 && a === "_local" && b === "faults") return { kind: "admin-faults" };
  if (decoded.length === 2 && a === "_local" && b === "stats") return { kind: "admin-stats" };
  if (a !== "v1" || b !== "default" || c !== "banks") return null;
  if (decoded.length === 3) return { kind: "banks" };
  if (d === undefined || d === "") return null;
  if (decoded.length === 4) return { kind: "bank", bankId: d };
  if (decoded.length === 5 && bankId === "reflect") return { kind: "reflect", bankId: d };
  if (decoded.length === 6 && bankId === "documents" && e !== undefined && e !== "") return { kind: "document", bankId: d, documentId: e };
  if (bankId !== "memories") return null;
  if (decoded.length === 5) return { kind: "retain", bankId: d };
  if (decoded.length === 6 && e === "list") return { kind: "list", bankId: d };
  if (decoded.length === 6 && e === "recall") return { kind: "recall", bankId: d };
  if (decoded.length === 6 && e !== undefined && e !== "") return { kind: "memory", bankId: d, memoryId: e };
  void f;
  void g;
  return null;
}
