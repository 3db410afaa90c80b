// A real Pi with a session runtime (as `pi` itself runs it): `ctx.newSession` works, the extension is
// loaded from its package directory for each session, pi-ai's faux provider answers, and a recording UI
// keeps notices and widgets. Environment variables (the agent dir, options) stay set until dispose,
// because Pi loads the extension again for every new session.
import { join } from "node:path";
import {
  type AgentSession,
  type AgentSessionRuntime,
  type CreateAgentSessionRuntimeFactory,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  DefaultResourceLoader,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { type AssistantMessage, type FauxProviderHandle, fauxAssistantMessage, fauxProvider, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { PACKAGE_DIR, recordingUi } from "./headless-pi.js";

export interface Recorded {
  readonly notices: { text: string; level: string }[];
  readonly widgets: Map<string, string[] | undefined>;
}

export interface RuntimePi extends Recorded {
  readonly runtime: AgentSessionRuntime;
  readonly session: AgentSession;
  readonly faux: FauxProviderHandle;
  /** Messages each provider call received (JSON copies). */
  readonly calls: Record<string, unknown>[][];
  dispose(): Promise<void>;
}

export interface RuntimePiOptions {
  /** cwd of the session (its basename is the memory project tag). */
  readonly dir: string;
  /** Pi's agent dir (PI_CODING_AGENT_DIR): where context-fold.json lives. Default `dir`. */
  readonly agentDir?: string;
  readonly contextWindow: number;
  readonly env?: Record<string, string>;
  /** Pi settings over compaction off / retry off. */
  readonly settings?: Record<string, unknown>;
  /** false: no UI context is bound (print mode), `hasUI` is false. */
  readonly ui?: boolean;
  /** The mode Pi runs in without a UI: print (`-p`, the default) or json (`--mode json`). */
  readonly mode?: "print" | "json";
  /** Open this session file instead of creating a new session. */
  readonly open?: string;
}

/** The founding request of the scripted sessions (expected verbatim in handoffs and the memory bank). */
export const FOUNDING = "Build the frobnicator service in src/frob.ts: keep the public API stable and log every retry (ticket FROB-7f3a).";
/** A correction the extractors recognise (a decision in the handoff, a memory in the bank). */
export const CORRECTION = "No, don't use seq for the job output; use printf instead (ticket FROB-9c1d).";

function textOf(message: Record<string, unknown> | undefined): string {
  const content = message?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** `job N` → a bash call printing ~120 lines; a tool result → a short text; anything else → "ok". */
export function jobResponder(): (messages: readonly Record<string, unknown>[]) => AssistantMessage {
  let replies = 0;
  return (messages) => {
    replies += 1;
    const id = `p3resp_${String(replies).padStart(4, "0")}`;
    const last = messages[messages.length - 1];
    if (last?.["role"] === "toolResult") return fauxAssistantMessage(fauxText("job done"), { responseId: id, stopReason: "stop" });
    const job = /^job (\d+)$/.exec(textOf(last).trim());
    if (job !== null) {
      const n = job[1] ?? "0";
      const command = `seq -f 'job ${n} row %g: the quick brown fox jumps over the lazy dog' 1 120`;
      return fauxAssistantMessage([fauxToolCall("bash", { command }, { id: `p3job_${n}_${String(replies)}` })], { responseId: id, stopReason: "toolUse" });
    }
    return fauxAssistantMessage(fauxText("ok"), { responseId: id, stopReason: "stop" });
  };
}

export async function startRuntimePi(options: RuntimePiOptions): Promise<RuntimePi> {
  const env: Record<string, string> = { PI_CODING_AGENT_DIR: options.agentDir ?? options.dir, ...options.env };
  const saved = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(env)) {
    saved.set(key, process.env[key]);
    process.env[key] = value;
  }
  const restore = (): void => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  const recorded: Recorded = { notices: [], widgets: new Map() };
  const calls: Record<string, unknown>[][] = [];
  const faux = fauxProvider({ models: [{ id: "faux-p3", contextWindow: options.contextWindow, reasoning: true, maxTokens: 4096 }] });
  const respond = jobResponder();
  faux.setResponses(
    Array.from({ length: 300 }, () => (context: { messages: readonly unknown[] }) => {
      const messages = JSON.parse(JSON.stringify(context.messages)) as Record<string, unknown>[];
      calls.push(messages);
      return respond(messages);
    }),
  );
  try {
    const modelRuntime = await ModelRuntime.create({ authPath: join(options.dir, "auth.json"), modelsPath: null });
    modelRuntime.registerNativeProvider(faux.provider);
    await modelRuntime.setRuntimeApiKey(faux.provider.id, "faux-key");
    const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false }, ...options.settings });
    const createRuntime: CreateAgentSessionRuntimeFactory = async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
      const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, additionalExtensionPaths: [PACKAGE_DIR] });
      await resourceLoader.reload();
      const loaded = resourceLoader.getExtensions();
      if (loaded.errors.length > 0) throw new Error(`extension load failed: ${JSON.stringify(loaded.errors)}`);
      const services = { cwd, agentDir, modelRuntime, settingsManager, resourceLoader, diagnostics: [] };
      const created = await createAgentSessionFromServices({
        services,
        sessionManager,
        ...(sessionStartEvent === undefined ? {} : { sessionStartEvent }),
        model: faux.getModel(),
        thinkingLevel: "medium",
        tools: ["bash", "context_recall"],
      });
      return { ...created, services, diagnostics: [] };
    };
    const sessionsDir = join(options.dir, "sessions");
    const manager = options.open === undefined ? SessionManager.create(options.dir, sessionsDir) : SessionManager.open(options.open, sessionsDir);
    const runtime = await createAgentSessionRuntime(createRuntime, { cwd: options.dir, agentDir: options.agentDir ?? options.dir, sessionManager: manager });
    const ui = options.ui === false ? undefined : recordingUi(recorded.notices, new Map(), recorded.widgets);
    const bind = async (): Promise<void> => {
      const session = runtime.session;
      await session.bindExtensions({
        ...(ui === undefined ? { mode: options.mode ?? ("print" as const) } : { uiContext: ui }),
        commandContextActions: {
          waitForIdle: () => runtime.session.waitForIdle(),
          newSession: (o) => runtime.newSession(o),
          fork: async (entryId, o) => ({ cancelled: (await runtime.fork(entryId, o)).cancelled }),
          navigateTree: async (targetId, o) => ({ cancelled: (await runtime.session.navigateTree(targetId, o)).cancelled }),
          switchSession: (path, o) => runtime.switchSession(path, o),
          reload: () => runtime.session.reload(),
        },
      });
    };
    runtime.setRebindSession(bind);
    await bind();
    return {
      runtime,
      get session() {
        return runtime.session;
      },
      faux,
      calls,
      notices: recorded.notices,
      widgets: recorded.widgets,
      dispose: async () => {
        try {
          await runtime.dispose();
        } finally {
          restore();
        }
      },
    };
  } catch (error) {
    restore();
    throw error;
  }
}

/** Wait until `check` holds (Pi runs some work without awaiting it). */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
