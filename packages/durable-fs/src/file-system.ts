// The file operations durable writes go through. Callers pass another implementation to inject faults
// (a short write, ENOSPC, a crash between two calls) in tests; production code uses `nodeFileSystem`.
import { closeSync, fstatSync, fsyncSync, ftruncateSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";

export interface FileSystem {
  openSync(path: string, flags: string, mode?: number): number;
  closeSync(fd: number): void;
  /** Writes up to `length` bytes; returns how many were written (may be fewer). */
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  fstatSync(fd: number): { size: number };
  renameSync(from: string, to: string): void;
  rmSync(path: string, options: { force: boolean }): void;
  mkdirSync(path: string, options: { recursive: true }): void;
  statSync(path: string): { ino: number; mtimeMs: number; size: number };
  linkSync(existing: string, created: string): void;
  readFileSync(path: string): Buffer;
}

export const nodeFileSystem: FileSystem = {
  openSync: (path, flags, mode) => openSync(path, flags, mode),
  closeSync: (fd) => closeSync(fd),
  writeSync: (fd, buffer, offset, length, position) => writeSync(fd, buffer, offset, length, position),
  fsyncSync: (fd) => fsyncSync(fd),
  ftruncateSync: (fd, length) => ftruncateSync(fd, length),
  fstatSync: (fd) => fstatSync(fd),
  renameSync: (from, to) => renameSync(from, to),
  rmSync: (path, options) => rmSync(path, options),
  mkdirSync: (path, options) => {
    mkdirSync(path, options);
  },
  statSync: (path) => statSync(path),
  linkSync: (existing, created) => linkSync(existing, created),
  readFileSync: (path) => readFileSync(path),
};
