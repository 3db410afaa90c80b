// Symbol extractors, one block per language, on code shaped like real projects in that language.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { extractSymbols, languageOf } from "@context-fold/extractors";

describe("languageOf", () => {
  it("maps extensions and ignores dots in directories", () => {
    expect(languageOf("src/a.ts")).toBe("ts");
    expect(languageOf("src/a.test.tsx")).toBe("ts");
    expect(languageOf("lib/x.mjs")).toBe("ts");
    expect(languageOf("a/b.py")).toBe("python");
    expect(languageOf("main.go")).toBe("go");
    expect(languageOf("src/lib.rs")).toBe("rust");
    expect(languageOf("Foo.java")).toBe("java");
    expect(languageOf("x.hpp")).toBe("c");
    expect(languageOf("build.zig")).toBe("zig");
    expect(languageOf("app/models/user.rb")).toBe("ruby");
    expect(languageOf("lib/plug/conn.ex")).toBe("elixir");
    expect(languageOf("v1.2/README")).toBeNull();
    expect(languageOf("notes.md")).toBeNull();
  });
});

describe("TypeScript / JavaScript", () => {
  // Shaped like Pi's theme.ts and a typical ESM module.
  const code = [
    'import * as fs from "node:fs";',
    "export type ThemeColor = \"accent\" | \"border\";",
    "export interface ThemeJson {",
    "  name: string;",
    "}",
    "export function detectColorMode(): ColorMode {",
    "export async function loadTheme(name: string): Promise<Theme> {",
    "export class Theme {",
    "  private fgColors: Map<ThemeColor, string>;",
    "export const theme: Theme = createTheme();",
    "export default class Editor {}",
    "export declare const enum Kind { A }",
    "function helper(x: number) {",
    "class Local {}",
    "  export function nestedNotTopLevel() {}",
  ].join("\n");
  it("finds exported and top-level names, signatures only for exports", () => {
    const s = extractSymbols("src/theme/theme.ts", code);
    expect(s.names).toEqual([
      "ThemeColor",
      "ThemeJson",
      "detectColorMode",
      "loadTheme",
      "Theme",
      "theme",
      "Editor",
      "Kind",
      "helper",
      "Local",
    ]);
    expect(s.signatures).toContain("export async function loadTheme(name: string): Promise<Theme> {");
    expect(s.signatures).toContain("export interface ThemeJson {");
    expect(s.signatures).not.toContain("function helper(x: number) {");
    expect(s.signatures).toHaveLength(8);
  });
});

describe("Python", () => {
  // Shaped like requests/sessions.py.
  const code = [
    "from collections import OrderedDict",
    "def merge_setting(request_setting, session_setting, dict_class=OrderedDict):",
    "class SessionRedirectMixin:",
    "    def get_redirect_target(self, resp):",
    "    def __init__(self):",
    "        def _inner():",
    "class Session(SessionRedirectMixin):",
    "async def fetch(url: str) -> bytes:",
    "def _private_helper():",
  ].join("\n");
  it("top-level defs and classes; public methods are names only; private names are not signatures", () => {
    const s = extractSymbols("requests/sessions.py", code);
    expect(s.names).toEqual(["merge_setting", "SessionRedirectMixin", "get_redirect_target", "Session", "fetch", "_private_helper"]);
    expect(s.signatures).toEqual([
      "def merge_setting(request_setting, session_setting, dict_class=OrderedDict):",
      "class SessionRedirectMixin:",
      "class Session(SessionRedirectMixin):",
      "async def fetch(url: str) -> bytes:",
    ]);
  });
});

describe("Go", () => {
  // Shaped like net/http/server.go.
  const code = [
    "package http",
    "type Handler interface {",
    "type HandlerFunc func(ResponseWriter, *Request)",
    "func (f HandlerFunc) ServeHTTP(w ResponseWriter, r *Request) {",
    "func ListenAndServe(addr string, handler Handler) error {",
    "func (srv *Server) shutdownCtx() {}",
    "func newConn() *conn {",
    "type conn struct {",
  ].join("\n");
  it("exported (capitalized) funcs, methods and types only", () => {
    const s = extractSymbols("net/http/server.go", code);
    expect(s.names).toEqual(["Handler", "HandlerFunc", "ServeHTTP", "ListenAndServe"]);
    expect(s.signatures).toContain("func ListenAndServe(addr string, handler Handler) error {");
  });
});

describe("Rust", () => {
  // Shaped like serde / tokio items.
  const code = [
    "use std::io;",
    "pub trait Serialize {",
    "    fn serialize<S>(&self, serializer: S) -> Result<S::Ok, S::Error>;",
    "pub struct Deserializer<R> {",
    "pub(crate) fn parse_number(&mut self) -> Result<u64> {",
    "pub async fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>",
    "pub enum Value {",
    "pub const MAX_DEPTH: usize = 128;",
    "    pub fn new(read: R) -> Self {",
    "fn private_helper() {}",
  ].join("\n");
  it("pub items including pub(crate), async and nested impl methods", () => {
    const s = extractSymbols("src/de.rs", code);
    expect(s.names).toEqual(["Serialize", "Deserializer", "parse_number", "spawn_blocking", "Value", "MAX_DEPTH", "new"]);
    expect(s.signatures).toContain("pub enum Value {");
  });
});

describe("Java", () => {
  // Shaped like java.util.ArrayList.
  const code = [
    "package java.util;",
    "public class ArrayList<E> extends AbstractList<E> implements List<E>, RandomAccess {",
    "    private static final long serialVersionUID = 8683452581122892189L;",
    "    public ArrayList(int initialCapacity) {",
    "    public static <T> List<T> asList(T... a) {",
    "    public boolean add(E e) {",
    "    private void grow(int minCapacity) {",
    "public final class Objects {",
    "public interface Comparable<T> {",
    "public record Point(int x, int y) {}",
  ].join("\n");
  it("public types, constructors and methods", () => {
    const s = extractSymbols("java/util/ArrayList.java", code);
    expect(s.names).toEqual(["ArrayList", "asList", "add", "Objects", "Comparable", "Point"]);
    expect(s.signatures).toContain("public boolean add(E e) {");
    expect(s.names).not.toContain("grow");
  });
});

describe("C / C++", () => {
  // Shaped like redis's sds.h / server.c and a C++ header.
  const code = [
    "#include <stdio.h>",
    "#define SDS_MAX_PREALLOC (1024*1024)",
    "typedef struct redisObject {",
    "sds sdsnewlen(const void *init, size_t initlen);",
    "int main(int argc, char **argv) {",
    "static void freeClientArgv(client *c) {",
    "void *zmalloc(size_t size);",
    "    if (x) {",
    "class Buffer {",
    "std::string Buffer::toString() const {",
    "return foo(bar);",
  ].join("\n");
  it("functions, types and macros; static functions and statements are not exported", () => {
    const s = extractSymbols("src/server.c", code);
    expect(s.names).toEqual(["SDS_MAX_PREALLOC", "redisObject", "sdsnewlen", "main", "zmalloc", "Buffer", "Buffer::toString"]);
    expect(s.signatures).toContain("sds sdsnewlen(const void *init, size_t initlen);");
    expect(s.signatures).not.toContain("#define SDS_MAX_PREALLOC (1024*1024)");
  });
});

describe("Zig", () => {
  // Shaped like std/mem.zig.
  const code = [
    'const std = @import("std");',
    "pub fn eql(comptime T: type, a: []const T, b: []const T) bool {",
    "pub const Allocator = @import(\"mem/Allocator.zig\");",
    "pub inline fn alignForward(addr: usize, alignment: usize) usize {",
    "fn privateHelper() void {}",
    "pub var global_counter: u32 = 0;",
  ].join("\n");
  it("pub fn / const / var", () => {
    const s = extractSymbols("lib/std/mem.zig", code);
    expect(s.names).toEqual(["eql", "Allocator", "alignForward", "global_counter"]);
  });
});

describe("Ruby", () => {
  // Shaped like ActiveRecord.
  const code = [
    "module ActiveRecord",
    "  class Base",
    "    def self.find_by(attributes)",
    "    def save!(**options)",
    "    def persisted?",
    "  class Relation::Merger",
  ].join("\n");
  it("modules, classes, instance and class methods with ?!", () => {
    const s = extractSymbols("activerecord/lib/active_record/base.rb", code);
    expect(s.names).toEqual(["ActiveRecord", "Base", "find_by", "save!", "persisted?", "Relation::Merger"]);
  });
});

describe("Elixir", () => {
  // Shaped like Plug.Conn.
  const code = [
    "defmodule Plug.Conn do",
    "  @moduledoc false",
    "  def put_status(%Conn{} = conn, status) do",
    "  defp run_before_send(conn, state) do",
    "  defmacro sigil_p(term, modifiers) do",
    "  def halted?(conn), do: conn.halted",
  ].join("\n");
  it("modules and public defs; defp is private", () => {
    const s = extractSymbols("lib/plug/conn.ex", code);
    expect(s.names).toEqual(["Plug.Conn", "put_status", "sigil_p", "halted?"]);
  });
});

describe("limits and adversarial input", { timeout: LINEAR_TIME_MS }, () => {
  it("unknown languages give nothing", () => {
    expect(extractSymbols("README.md", "export function x() {}")).toEqual({ names: [], signatures: [] });
  });
  it("a 1 MB line of one character in every language finishes and yields nothing odd", () => {
    for (const path of ["a.ts", "a.py", "a.go", "a.rs", "a.java", "a.c", "a.zig", "a.rb", "a.ex"]) {
      for (const ch of ["a", " ", "(", "export ", "pub ", "public "]) {
        const s = extractSymbols(path, ch.repeat(Math.ceil(1_000_000 / ch.length)));
        expect(s.names.length).toBeLessThanOrEqual(1);
      }
    }
  });
  it("many short lines: signatures are clipped to 200 chars", () => {
    const long = `export function f(${"a: number, ".repeat(40)}) {}`;
    const s = extractSymbols("a.ts", long);
    expect(s.signatures[0]?.length).toBe(201);
    expect(s.signatures[0]?.endsWith("…")).toBe(true);
  });
});
