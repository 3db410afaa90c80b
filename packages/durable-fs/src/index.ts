// Public API of @context-fold/durable-fs: durable writes and the short append lock, with no dependencies.
export { appendAt, type AppendAtResult, appendFile, type AppendFileOptions } from "./append.js";
export { acquireAppendLock, type HeldLock, lockPathFor, type LockOptions, withAppendLock } from "./append-lock.js";
export { LockTimeoutError, ShortWriteError } from "./errors.js";
export { type FileSystem, nodeFileSystem } from "./file-system.js";
export { type FileContent, replaceFile, type ReplaceOptions } from "./replace-file.js";
export { syncDirectory } from "./sync-directory.js";
export { isTempNameFor, tempPathFor } from "./temp-name.js";
export { writeAll } from "./write-all.js";
export { stateDir } from "./state-dir.js";
