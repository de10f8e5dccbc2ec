"""The README and docs/ describe the code as it is.

The README is the five-minute front page: it stays short, names every MCP tool the server
registers and every `worlddb` subcommand the parser knows, and shows one valid call of each
tool. Every page in docs/ is linked from it. Every relative link, every repository path and
every `worlddb.` dotted name written in backticks resolves, so a moved module or a renamed
heading fails here instead of leaving a dead reference. The Python examples run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import itertools
import json
import re
import runpy
import tomllib
from pathlib import Path

import pytest

from worlddb.cli import build_parser
from worlddb.server import ServerConfig, build_server

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 250
#: top-level folders of this repository: a backticked path starting with one is checked
REPO_FOLDERS = ("worlddb", "handlers", "server", "tests", "bench", "fuzz", "docs")

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def prose(text: str) -> str:
    """The text without its fenced code blocks."""
    return FENCE.sub("", text)


def registered_tools(tmp_path) -> dict:
    # list_tools needs no lifespan: the engine is never opened and no file is created
    server = build_server(ServerConfig(db=str(tmp_path / "m.db")))
    return {tool.name: tool for tool in asyncio.run(server.list_tools())}


def subcommands() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert actions, "worlddb's parser has no subcommands"
    return sorted(name for action in actions for name in action.choices)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(h) for h in HEADING.findall(prose(page.read_text()))}


def expand_braces(path: str) -> list[str]:
    """`scale-{10k,1m}.json` -> both names."""
    parts = re.split(r"\{([^{}]*)\}", path)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(combo) for combo in itertools.product(*choices)]


def resolves(dotted: str) -> bool:
    """Whether `worlddb.a.b.C` names an importable module, or an attribute of one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                value = getattr(value, name)
        except AttributeError:
            return False
        return True
    return False


# ------------------------------------------------------------------ the README's shape
def test_the_readme_is_a_five_minute_read():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, (
        f"README.md has {len(lines)} lines; at most {MAX_README_LINES}: move detail into docs/")


def test_every_registered_tool_is_named_in_the_readme(tmp_path):
    text = README.read_text()
    tools = registered_tools(tmp_path)
    assert len(tools) == 9
    missing = [name for name in tools if f"`{name}`" not in text]
    assert not missing, f"README.md does not name these MCP tools in backticks: {missing}"
    assert not (tmp_path / "m.db").exists()


def test_every_dependency_has_its_row_in_the_readme():
    """The project's rule: the README's dependency table says why each dependency is there."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = [*project["dependencies"], *itertools.chain(*project.get("optional-dependencies", {}).values())]
    names = {re.match(r"[A-Za-z0-9._-]+", spec).group(0).lower() for spec in specs}
    text = README.read_text()
    table = text[text.index("## Dependencies, and why each"):]
    table = table[:table.index("\n## ", 1)]
    missing = sorted(name for name in names if f"`{name}`" not in table.lower())
    assert not missing, f"README.md's dependency table has no row for: {missing}"


def test_every_subcommand_is_in_the_readme():
    text = README.read_text()
    missing = [name for name in subcommands() if f"worlddb {name}" not in text]
    assert not missing, f"README.md does not show these subcommands as `worlddb <name>`: {missing}"


def example_calls() -> list[tuple[str, dict]]:
    text = README.read_text()
    match = re.search(r"One call of each.*?```\n(.*?)```", text, re.S)
    assert match, "README.md has no block of example tool calls"
    calls = []
    for line in match.group(1).strip().splitlines():
        name, arguments = line.split(None, 1)
        calls.append((name, json.loads(arguments)))
    return calls


def test_the_readme_shows_one_valid_call_of_each_tool(tmp_path):
    tools = registered_tools(tmp_path)
    calls = example_calls()
    assert sorted(name for name, _ in calls) == sorted(tools), "one example call per tool, no other"
    for name, arguments in calls:
        schema = tools[name].input_schema
        unknown = set(arguments) - set(schema.get("properties", {}))
        assert not unknown, f"{name}: the example passes arguments the tool does not take: {unknown}"
        missing = set(schema.get("required", ())) - set(arguments)
        assert not missing, f"{name}: the example leaves out required arguments: {missing}"


# ------------------------------------------------------------------ links and references
def test_every_docs_page_is_linked_from_the_readme_and_every_link_to_one_exists():
    linked = {
        (README.parent / target.split("#")[0]).resolve()
        for target in LINK.findall(README.read_text()) if target.startswith("docs/")
    }
    assert linked, "README.md links to no page in docs/"
    for target in linked:
        assert target.is_file(), f"README.md links to {target.relative_to(ROOT)}, which does not exist"
    orphans = [p.name for p in DOCS.glob("*.md") if p.resolve() not in linked]
    assert not orphans, f"docs pages the README does not link to: {orphans}"


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(prose(page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_paths_in_backticks_exist(page):
    missing = []
    for span in CODE_SPAN.findall(prose(page.read_text())):
        if "/" not in span or "<" in span or not re.fullmatch(r"[\w./{},-]+", span):
            continue
        if span.split("/")[0] not in REPO_FOLDERS:
            continue
        missing += [p for p in expand_braces(span) if not (ROOT / p).exists()]
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_dotted_names_in_backticks_resolve(page):
    names = {span for span in CODE_SPAN.findall(prose(page.read_text()))
             if re.fullmatch(r"worlddb(\.\w+)+", span)}
    unresolved = sorted(name for name in names if not resolves(name))
    assert not unresolved, f"{page.relative_to(ROOT)} names what does not exist: {unresolved}"


# ------------------------------------------------------------------ the examples run
@pytest.mark.parametrize("page", [README, DOCS / "python-api.md"], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_python_examples_run(page, tmp_path, monkeypatch, capsys):
    """Each ```python block runs as written, in an empty folder (the real embedding model,
    the built-in extractor)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)
    assert blocks, f"{page.relative_to(ROOT)} has no Python example"
    for number, block in enumerate(blocks):
        script = tmp_path / f"example_{number}.py"
        script.write_text(block)
        runpy.run_path(str(script), run_name="__main__")
        out = capsys.readouterr().out
        assert out.strip(), "each example prints what it shows"
        # `print(...)   # shown` : what the comment shows is what the example prints
        for shown in re.findall(r"^\s*print\(.*\)\s+#\s*(.+?)\s*$", block, re.M):
            assert shown in out, f"example {number} of {page.name} should print {shown!r}; it printed {out!r}"
