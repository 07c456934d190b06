"""`imports.Resolver`: where an import leads, or why it leads nowhere in the workspace."""

from __future__ import annotations

from smartsearch_ls.search.symbols.imports import Resolver, parse_imports


def test_the_standard_library_is_external_even_beside_a_folder_of_its_name() -> None:
    """A `tests/typing/` folder makes `typing` a workspace name; `import typing` still leaves the workspace."""
    paths = ["tests/typing/check_types.py", "core/ghost_free.py", "app.py"]
    resolver = Resolver(paths, lambda path: None)
    text = "import typing\nimport core.ghost\nfrom core import ghost_free\n"
    refs = {ref.specifier: ref for ref in parse_imports("app.py", [(1, text)])}
    assert resolver.resolve(refs["typing"]).reason == "external"
    assert resolver.resolve(refs["core.ghost"]).reason == "missing"  # a workspace package without that module
    assert resolver.resolve(refs["core"], "ghost_free").target == "core/ghost_free.py"


def test_a_top_level_package_named_like_the_standard_library_is_the_workspaces() -> None:
    resolver = Resolver(["src/email/__init__.py", "src/email/render.py", "app.py"], lambda path: None)
    (ref,) = parse_imports("app.py", [(1, "from email.templates import page\n")])
    assert resolver.resolve(ref).reason == "missing"  # its own `email` package has no `templates`
