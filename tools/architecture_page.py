#!/usr/bin/env python3
"""Brings docs/architecture.md in step with the code: the line counts of the crate
table and the "Modules" section (each source file with the first sentence of its own
`//!` documentation) are rewritten; the rest of the page (the crates' descriptions,
the spec table) is kept as written. Run from the repository root after moving or
adding modules; crates/hopsig-cli/tests/guides.rs fails while the page misses one."""
import os
import re
import sys

PAGE = "docs/architecture.md"


def first_sentence(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("//!"):
                text = line[3:].strip()
                if not text and lines:
                    break
                if text:
                    lines.append(text)
            elif lines or (line.strip() and not line.startswith(("#!", "//"))):
                break
    text = " ".join(lines)
    m = re.match(r"(.+?\.)(\s|$)", text)
    text = m.group(1) if m else text
    if len(text) > 240:
        cut = max(text.rfind("; ", 0, 240), text.rfind(", ", 0, 240), text.rfind(": ", 0, 240))
        text = text[: cut if cut > 0 else 240] + " …"
    return text.replace("|", "\\|")


def sources(crate):
    base = os.path.join("crates", crate, "src")
    for dirpath, _, names in os.walk(base):
        for name in names:
            if name.endswith(".rs"):
                yield os.path.relpath(os.path.join(dirpath, name), base)


def lines(crate):
    total = 0
    for rel in sources(crate):
        with open(os.path.join("crates", crate, "src", rel), encoding="utf-8") as f:
            total += sum(1 for _ in f)
    return total


def main():
    page = open(PAGE, encoding="utf-8").read()
    head, rest = page.split("## Modules\n", 1)
    spec = rest[rest.index("## Specs, code and tests"):]
    crates = re.findall(r"^\| `crates/([a-z0-9-]+)` \|", head, re.M)
    missing = sorted(
        c for c in os.listdir("crates")
        if os.path.exists(os.path.join("crates", c, "Cargo.toml")) and c not in crates
    )
    if missing:
        sys.exit(f"{PAGE}: describe these crates in its table first: {', '.join(missing)}")
    head = re.sub(
        r"^(\| `crates/([a-z0-9-]+)` \|.*\| )[\d,]+ \|$",
        lambda m: f"{m.group(1)}{lines(m.group(2)):,} |",
        head,
        flags=re.M,
    )
    out = [head.rstrip("\n"), "", "## Modules"]
    for crate in crates:
        out += ["", f"### `crates/{crate}`", "", "| file | what it is |", "|---|---|"]
        for rel in sorted(sources(crate)):
            out.append(f"| `{rel}` | {first_sentence(os.path.join('crates', crate, 'src', rel))} |")
    open(PAGE, "w", encoding="utf-8").write("\n".join(out) + "\n\n" + spec)


if __name__ == "__main__":
    main()
