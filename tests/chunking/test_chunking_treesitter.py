"""Tree-sitter languages: declarations, qualified names, kinds, splitting, comments, fallbacks."""

import textwrap

import pytest

from smartsearch_ls.chunking import chunk_file


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def kinds(chunked) -> dict[str, str]:
    return {declaration.qualified_name: declaration.kind for declaration in chunked.declarations}


def spans(chunked) -> list[tuple[str | None, int, int]]:
    return [(snippet.symbol, snippet.start_line, snippet.end_line) for snippet in chunked.snippets]


TYPESCRIPT = dedent(
    """
    import { Base } from "./base";

    export const MAX_SIZE = 128;
    export const makeKey = (id: string): string => `k:${id}`;

    /** A tiny cache. */
    @injectable()
    export class Cache<T> extends Base {
      private hits = 0;

      constructor() {
        super();
      }

      get(key: string): T | undefined {
        return this.data.get(key);
      }
    }

    export interface Store {
      size: number;
      load(key: string): Promise<string>;
    }

    type Key = string;
    enum Color { Red, Green }
    namespace Util { export function clamp(x: number) { return x; } }
    function* ids() { yield 1; }
    """
)


def test_typescript(invariants):
    chunked = chunk_file("src/cache.ts", TYPESCRIPT)
    invariants(TYPESCRIPT, chunked)
    assert kinds(chunked) == {
        "MAX_SIZE": "constant",
        "makeKey": "function",
        "Cache": "class",
        "Cache.hits": "field",
        "Cache.constructor": "constructor",
        "Cache.get": "method",
        "Store": "interface",
        "Store.size": "property",
        "Store.load": "method",
        "Key": "type_parameter",
        "Color": "enum",
        "Util": "namespace",
        "Util.clamp": "function",
        "ids": "function",
    }
    get = next(d for d in chunked.declarations if d.qualified_name == "Cache.get")
    assert (get.start_line, get.end_line, get.name_line, get.name_column) == (15, 17, 15, 2)
    assert spans(chunked) == [
        (None, 1, 3),
        ("makeKey", 4, 4),
        ("Cache", 6, 18),  # doc comment and decorator included
        ("Store", 20, 23),
        (None, 25, 25),
        ("Color", 26, 26),
        ("Util", 27, 27),
        ("ids", 28, 28),
    ]


def test_overload_signatures_join_the_function_they_declare(invariants):
    """Overloads and body were two adjacent snippets (and two adjacent matches): one for the signatures, no symbol."""
    source = dedent(
        """
        export function helper(): void {}

        /** Merge two shapes. */
        export function merge<A, B>(
          a: A,
          b: B,
        ): A & B;
        export function merge(a: object, b: object): object;
        export function merge(a: any, b: any): any {
          return { ...a, ...b };
        }

        export function lonely(x: number): number;
        declare function ambient(): void;
        """
    )
    chunked = chunk_file("src/merge.ts", source)
    invariants(source, chunked)
    assert ("merge", 3, 11) in spans(chunked)  # doc comment, both signatures, the body
    assert [d.kind for d in chunked.declarations if d.name == "merge"] == ["function"] * 3  # each still a symbol
    assert not any(start <= 13 <= end for symbol, start, end in spans(chunked) if symbol == "merge")


def test_tsx_and_javascript_grammars(invariants):
    tsx = "export function App(props: Props) {\n  return <div>{props.name}</div>;\n}\n"
    assert kinds(chunk_file("App.tsx", tsx)) == {"App": "function"}
    js = dedent(
        """
        const api = {
          get(key) { return key; },
        };
        class Widget extends HTMLElement {
          static count = 0;
          render() { return <p/>; }
        }
        module.exports = { api, Widget };
        """
    )
    for path in ("w.js", "w.jsx", "w.mjs", "w.cjs"):
        chunked = chunk_file(path, js)
        invariants(js, chunked)
        assert kinds(chunked) == {
            "api": "variable",
            "api.get": "method",
            "Widget": "class",
            "Widget.count": "field",
            "Widget.render": "method",
        }


COMMONJS = dedent(
    """
    'use strict';
    var res = Object.create(http.ServerResponse.prototype);

    /**
     * Send a JSON response with JSONP callback support.
     */
    res.jsonp = function jsonp(obj) {
      var body = JSON.stringify(obj);
      return this.send(body);
    };

    proto.handle = (req, done) => {
      return done(req);
    };

    module.exports = {
      redirect: function (url) {
        this.url = url;
      },
    };

    /**
     * Its doc comment, then a blank line.
     */

    function spaced() {
      return 1;
    }
    """
)


def test_commonjs_method_assignments_are_named_declarations(invariants):
    chunked = chunk_file("lib/response.js", COMMONJS)
    invariants(COMMONJS, chunked)
    assert kinds(chunked) == {
        "res": "variable",
        "res.jsonp": "method",
        "proto.handle": "method",
        "redirect": "method",
        "spaced": "function",
    }
    named = {symbol: (start, end) for symbol, start, end in spans(chunked) if symbol}
    assert named["res.jsonp"] == (4, 10)  # with the doc comment above it
    assert named["proto.handle"] == (12, 14)
    assert named["spaced"] == (22, 28)  # a doc comment and one blank line above still belong to it


def test_a_module_exporting_one_named_function_is_found_by_the_function_s_name(invariants):
    """`module.exports = function optionMatcher(args)` was named `module.exports` alone: a look-up of
    `optionMatcher` found nothing, and the judge saw no name saying what the file does."""
    text = "const re = /x/\n\nmodule.exports = function optionMatcher (args) {\n  return args.filter(re.test)\n}\n"
    chunked = chunk_file("lib/cli-options.js", text)
    invariants(text, chunked)
    assert kinds(chunked)["optionMatcher"] == "function"
    assert "module.exports" in kinds(chunked)  # still found as what it is too
    assert {symbol: (start, end) for symbol, start, end in spans(chunked) if symbol}["optionMatcher"] == (3, 5)


def test_go(invariants):
    text = dedent(
        """
        package server

        // Server serves requests.
        type Server struct {
        \taddr string
        }

        type (
        \tID int
        \tHandler interface{ Serve() error }
        )

        const Version = "1"

        func (s *Server) Start() error { return nil }

        func (b Box[T]) Get() T { return b.v }

        func New() *Server { return &Server{} }
        """
    )
    chunked = chunk_file("server.go", text)
    invariants(text, chunked)
    assert kinds(chunked) == {
        "Server": "struct",
        "Server.addr": "field",
        "ID": "type_parameter",
        "Handler": "interface",
        "Handler.Serve": "method",
        "Version": "constant",
        "Server.Start": "method",
        "Box.Get": "method",
        "New": "function",
    }
    assert spans(chunked) == [
        (None, 1, 1),
        ("Server", 3, 6),
        (None, 8, 13),
        ("Server.Start", 15, 15),
        ("Box.Get", 17, 17),
        ("New", 19, 19),
    ]


def test_rust(invariants):
    text = dedent(
        """
        use std::fmt;

        /// A cache.
        #[derive(Debug)]
        pub struct Cache<T> { items: Vec<T> }

        impl<T> Cache<T> {
            pub fn new() -> Self { Cache { items: vec![] } }
        }

        impl fmt::Display for Cache<u8> {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }
        }

        pub trait Store { fn load(&self); }
        pub enum Mode { Fast, Slow }
        mod util { pub fn helper() {} }
        const LIMIT: usize = 3;
        macro_rules! square { ($x:expr) => { $x * $x }; }
        """
    )
    chunked = chunk_file("src/lib.rs", text)
    invariants(text, chunked)
    assert kinds(chunked) == {
        "Cache": "struct",
        "Cache.items": "field",
        "Cache.new": "method",
        "Cache.fmt": "method",
        "Store": "interface",
        "Store.load": "method",
        "Mode": "enum",
        "util": "module",
        "util.helper": "function",
        "LIMIT": "constant",
        "square": "function",
    }
    assert ("Cache", 3, 5) in spans(chunked)
    assert ("Cache", 7, 9) in spans(chunked)


def test_java(invariants):
    text = dedent(
        """
        package app;

        /** A cache. */
        @Service
        public class Cache<K> {
            private int hits = 0;

            public Cache() {}

            @Override
            public K get(K key) {
                return key;
            }

            interface Listener { void onHit(); }
            enum Mode { FAST, SLOW }
            record Entry(String key) {}
        }
        """
    )
    chunked = chunk_file("src/Cache.java", text)
    invariants(text, chunked)
    assert kinds(chunked) == {
        "Cache": "class",
        "Cache.hits": "field",
        "Cache.Cache": "constructor",
        "Cache.get": "method",
        "Cache.Listener": "interface",
        "Cache.Listener.onHit": "method",
        "Cache.Mode": "enum",
        "Cache.Entry": "class",
    }
    assert spans(chunked) == [(None, 1, 1), ("Cache", 3, 18)]


def test_ruby(invariants):
    text = dedent(
        """
        # Storage.
        module Store
          class Disk::Cache < Base
            LIMIT = 3

            def initialize
              @items = {}
            end

            def get(key)
              @items[key]
            end

            def self.build; new; end
          end
        end
        """
    )
    chunked = chunk_file("lib/store.rb", text)
    invariants(text, chunked)
    assert kinds(chunked) == {
        "Store": "module",
        "Store.Disk.Cache": "class",
        "Store.Disk.Cache.LIMIT": "constant",
        "Store.Disk.Cache.initialize": "constructor",
        "Store.Disk.Cache.get": "method",
        "Store.Disk.Cache.build": "method",
    }
    cache = next(d for d in chunked.declarations if d.name == "Cache")
    assert (cache.name_line, cache.name_column) == (3, 14)
    assert spans(chunked) == [("Store", 1, 16)]


def long_method(name: str, lines: int, indent: str) -> list[str]:
    return [f"{indent}{name}(key) {{", *(f"{indent}  let v{n} = key + {n};" for n in range(lines)), f"{indent}}}"]


def test_long_typescript_class_is_split_into_methods(invariants):
    source = ["export class Cache {", "  private size = 0;", ""]
    for name in ("get", "put", "drop"):
        source += ["  // " + name, *long_method(name, 70, "  "), ""]
    source += ["}", ""]
    text = "\n".join(source)
    chunked = chunk_file("cache.ts", text)
    invariants(text, chunked)
    assert spans(chunked) == [
        ("Cache", 1, 2),
        ("Cache.get", 4, 76),
        ("Cache.put", 78, 150),
        ("Cache.drop", 152, 226),  # the class's closing brace joins the last method
    ]


def test_long_function_is_split_into_statement_groups(invariants):
    text = "\n".join(["function handler(req) {", *(f"  step({n});" for n in range(400)), "}"]) + "\n"
    chunked = chunk_file("handler.js", text)
    invariants(text, chunked)
    assert [symbol for symbol, _, _ in spans(chunked)] == ["handler"] * 3
    assert spans(chunked)[-1][2] == 402


def test_long_rust_impl_gives_type_qualified_methods(invariants):
    body = [f"        let v{n} = {n};" for n in range(100)]
    text = "\n".join(
        ["impl Cache {", "    fn get(&self) {", *body, "    }", "    fn put(&self) {", *body, "    }", "}"]
    )
    chunked = chunk_file("cache.rs", text)
    invariants(text, chunked)
    assert [symbol for symbol, _, _ in spans(chunked)] == ["Cache", "Cache.get", "Cache.put"]


def test_long_callback_bodies_are_split_without_symbols(invariants):
    tests = [line for n in range(60) for line in (f"  it('case {n}', () => {{", f"    check({n});", "  });")]
    text = "\n".join(["describe('cache', () => {", *tests, "});"]) + "\n"
    chunked = chunk_file("cache.test.js", text)
    invariants(text, chunked)
    assert [(s.start_line, s.end_line, s.symbol) for s in chunked.snippets] == [(1, 160, None), (161, 182, None)]


def test_lone_cr_and_crlf_keep_editor_line_numbers(invariants):
    for newline in ("\r", "\r\n"):
        text = newline.join(["// head", "", "function first() {", "  return 1;", "}", "function second() {}"])
        chunked = chunk_file("a.ts", text)
        invariants(text, chunked)
        assert [(d.name, d.name_line) for d in chunked.declarations] == [("first", 3), ("second", 6)]


def test_form_feed_and_unicode_columns(invariants):
    text = 'const s = "\u2028\u00e9\f";\ffunction caf\u00e9() {}\nconst \u00e9t\u00e9 = () => 1;\n'
    chunked = chunk_file("a.js", text)
    invariants(text, chunked)
    assert [(d.name, d.name_line, d.name_column) for d in chunked.declarations] == [
        ("s", 1, 6),
        ("caf\u00e9", 1, 26),
        ("\u00e9t\u00e9", 2, 6),
    ]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("broken.ts", "export class {{{ ;;; \n" * 130),
        ("broken.go", "}}} func (\n" * 130),
        ("broken.java", "))) class\n" * 130),
    ],
)
def test_top_level_syntax_errors_fall_back_to_windows(invariants, path, text):
    chunked = chunk_file(path, text)
    invariants(text, chunked, budget=None)
    assert chunked.declarations == ()
    assert [(s.start_line, s.end_line) for s in chunked.snippets] == [(1, 60), (51, 110), (101, 130)]


def test_errors_inside_a_declaration_are_tolerated(invariants):
    text = "function ok() { return 1; }\nfunction half() {\n  let x = ;\n}\n"
    chunked = chunk_file("a.js", text)
    invariants(text, chunked)
    assert kinds(chunked) == {"ok": "function", "half": "function"}


def test_deep_nesting(invariants):
    for text in ("x = " + "[" * 100_000 + "]" * 100_000 + ";\n", "[\n" * 3000 + "]\n" * 3000):
        chunked = chunk_file("deep.js", text)
        invariants(text, chunked, budget=None)
        assert chunked.snippets


def test_closing_brace_never_pushes_a_snippet_past_the_budget(invariants):
    text = "\n".join(["class Cache {", *long_method("get", 158, "  "), "}"])  # get is exactly 160 lines
    chunked = chunk_file("cache.ts", text)
    invariants(text, chunked)
    assert spans(chunked) == [("Cache", 1, 1), ("Cache.get", 2, 161), ("Cache", 162, 162)]


def test_byte_order_mark_is_not_content(invariants):
    chunked = chunk_file("a.ts", "\ufefffunction f() {}\n")
    assert [(d.name, d.name_column) for d in chunked.declarations] == [("f", 9)]
    assert chunked.snippets[0].text == "function f() {}"


def test_a_go_type_of_any_kind_is_a_snippet_of_its_own(invariants):
    """`type Collection []*Version` with its doc comment is asked for by its name like a struct; folded into the
    file's header it was neither named nor found by it."""
    go = dedent(
        """
        package version

        // Collection is a list of versions that can be sorted.
        type Collection []*Version

        func (v Collection) Len() int { return len(v) }
        """
    )
    chunked = chunk_file("version_collection.go", go)
    invariants(go, chunked)
    assert spans(chunked) == [(None, 1, 1), ("Collection", 3, 4), ("Collection.Len", 6, 6)]
