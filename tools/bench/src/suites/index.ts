// Every bench suite, in table order. Each lives in its own file and returns BenchRows.
import type { BenchSuite } from "../types.js";

export const suites: Record<string, BenchSuite> = {};
