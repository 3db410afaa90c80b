// A real Pi, headless: pi-ai's faux provider scripted per call, Pi's own session files on disk, and
// our extension loaded from its package directory exactly as `pi install ./apps/pi-extension` would.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AgentSession,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionFactory,
  type ExtensionUIContext,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { type AssistantMessage, type FauxProviderHandle, fauxProvider } from "@earendil-works/pi-ai";

/** The package directory Pi loads the extension from (its package.json carries the `pi` key). */
export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** What one provider call received: the messages (JSON copies) the model saw. */
export interface ReceivedCall {
  readonly messages: Record<string, unknown>[];
}

export type Responder = (messages: readonly Record<string, unknown>[], call: number) => AssistantMessage;

export interface HeadlessPi {
  readonly session: AgentSession;
  readonly manager: SessionManager;
  readonly calls: ReceivedCall[];
  readonly notices: { text: string; level: string }[];
  /** Footer statuses by key, each value in the order set (undefined: cleared). */
  readonly statuses: Map<string, (string | undefined)[]>;
  /** Widgets by key, as last set (string lines; undefined: removed or a component). */
  readonly widgets: Map<string, string[] | undefined>;
  /** The extensions Pi loaded (paths). */
  readonly extensionPaths: string[];
  readonly faux: FauxProviderHandle;
  dispose(): void;
}

export interface HeadlessOptions {
  readonly dir: string;
  /** Open this session file (a restart) instead of creating a new session. */
  readonly open?: string;
  /** Keep the session in memory only (`SessionManager.inMemory`): no session file at all. */
  readonly inMemory?: boolean;
  readonly contextWindow: number;
  readonly respond: Responder;
  readonly env?: Record<string, string>;
  /** Pi settings merged over the defaults here (compaction off, retry off), e.g. `{ compaction: {…} }`. */
  readonly settings?: Record<string, unknown>;
  /** Inline extensions loaded after ours (Pi loads path extensions first). */
  readonly extensionFactories?: ExtensionFactory[];
  /** More faux models beside `faux-fold` (e.g. a smaller window to switch to with `session.setModel`). */
  readonly extraModels?: { readonly id: string; readonly contextWindow: number }[];
  /** The mode Pi reports to extensions (`ctx.mode`); Pi's default when unset is print (with our recording UI). */
  readonly mode?: "tui" | "print" | "json" | "rpc";
  /** Pi's tool allowlist (`--tools`); default bash and context_recall. */
  readonly tools?: readonly string[];
}

/** A UI that records notices; every other UI method is a no-op (Pi copies the object's methods). */
/** A UI context that records what the extension shows (notices, statuses, widgets); every other method is a no-op. */
export function recordingUi(
  notices: { text: string; level: string }[],
  statuses: Map<string, (string | undefined)[]>,
  widgets: Map<string, string[] | undefined>,
): ExtensionUIContext {
  const noop = (): undefined => undefined;
  const methods = [
    "onTerminalInput", "setStatus", "setWorkingMessage", "setWorkingVisible", "setWorkingIndicator", "setHiddenThinkingLabel",
    "setWidget", "setFooter", "setHeader", "setTitle", "custom", "pasteToEditor", "setEditorText", "addAutocompleteProvider",
    "setEditorComponent", "getEditorComponent", "getTheme", "setTheme", "setToolsExpanded",
  ];
  const ui: Record<string, unknown> = Object.fromEntries(methods.map((name) => [name, noop]));
  ui["notify"] = (text: string, level = "info") => notices.push({ text, level });
  ui["setStatus"] = (key: string, text: string | undefined) => statuses.set(key, [...(statuses.get(key) ?? []), text]);
  ui["setWidget"] = (key: string, content: unknown) => widgets.set(key, Array.isArray(content) ? (content as string[]) : undefined);
  ui["select"] = () => Promise.resolve(undefined);
  ui["confirm"] = () => Promise.resolve(false);
  ui["input"] = () => Promise.resolve(undefined);
  ui["editor"] = () => Promise.resolve(undefined);
  ui["getEditorText"] = () => "";
  ui["getAllThemes"] = () => [];
  ui["getToolsExpanded"] = () => false;
  return ui as unknown as ExtensionUIContext;
}

export async function startPi(options: HeadlessOptions): Promise<HeadlessPi> {
  const calls: ReceivedCall[] = [];
  const notices: { text: string; level: string }[] = [];
  const statuses = new Map<string, (string | undefined)[]>();
  const widgets = new Map<string, string[] | undefined>();
  const extra = (options.extraModels ?? []).map((m) => ({ id: m.id, contextWindow: m.contextWindow, reasoning: true, maxTokens: 4096 }));
  const faux = fauxProvider({ models: [{ id: "faux-fold", contextWindow: options.contextWindow, reasoning: true, maxTokens: 4096 }, ...extra] });
  const runtime = await ModelRuntime.create({ authPath: join(options.dir, "auth.json"), modelsPath: null });
  runtime.registerNativeProvider(faux.provider);
  await runtime.setRuntimeApiKey(faux.provider.id, "faux-key");
  // Every call is answered by the responder, which sees what Pi (and our hook) sent.
  const step = (context: { messages: readonly unknown[] }): AssistantMessage => {
    const messages = JSON.parse(JSON.stringify(context.messages)) as Record<string, unknown>[];
    calls.push({ messages });
    return options.respond(messages, calls.length);
  };
  faux.setResponses(Array.from({ length: 200 }, () => step));
  // The extension reads its config file from Pi's agent dir (PI_CODING_AGENT_DIR): point it at the
  // test's own folder so no test reads or scaffolds the real ~/.pi/agent/context-fold.json.
  process.env["PI_CODING_AGENT_DIR"] = options.dir;
  const loader = new DefaultResourceLoader({ cwd: options.dir, agentDir: options.dir, additionalExtensionPaths: [PACKAGE_DIR], extensionFactories: options.extensionFactories ?? [] });
  await loader.reload();
  const loaded = loader.getExtensions();
  if (loaded.errors.length > 0) throw new Error(`extension load failed: ${JSON.stringify(loaded.errors)}`);
  const sessionsDir = join(options.dir, "sessions");
  const manager =
    options.inMemory === true
      ? SessionManager.inMemory(options.dir)
      : options.open === undefined
        ? SessionManager.create(options.dir, sessionsDir)
        : SessionManager.open(options.open, sessionsDir);
  const { session } = await createAgentSession({
    cwd: options.dir,
    agentDir: options.dir,
    model: faux.getModel(),
    thinkingLevel: "medium",
    modelRuntime: runtime,
    resourceLoader: loader,
    sessionManager: manager,
    settingsManager: SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false }, ...options.settings }),
    tools: [...(options.tools ?? ["bash", "context_recall"])],
  });
  await session.bindExtensions({ uiContext: recordingUi(notices, statuses, widgets), ...(options.mode === undefined ? {} : { mode: options.mode }) });
  const extensionPaths = loaded.extensions.map((e) => e.path);
  return { session, manager, calls, notices, statuses, widgets, extensionPaths, faux, dispose: () => session.dispose() };
}
