#!/usr/bin/env python3
"""CMake's configure_file() for open62541's config.h.in, so Bazel needs no CMake.

usage: configure_file.py IN OUT NAME=VALUE... [+DEFINED_NAME...]

`${NAME}` and `@NAME@` are replaced by VALUE; `#cmakedefine NAME` becomes `#define NAME`
for every +NAME given and `/* #undef NAME */` otherwise (CMake's exact behaviour).
"""

import re
import sys


def main(argv: list[str]) -> int:
    source, target, *settings = argv
    values: dict[str, str] = {}
    defined: set[str] = set()
    for setting in settings:
        if setting.startswith("+"):
            defined.add(setting[1:])
        else:
            name, _, value = setting.partition("=")
            values[name] = value

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in values:
            raise SystemExit(f"configure_file: no value for {name}")
        return values[name]

    out = []
    with open(source, encoding="utf-8") as handle:
        for line in handle:
            cmakedefine = re.match(r"#cmakedefine\s+(\w+)(.*)$", line.rstrip("\n"))
            if cmakedefine:
                name, rest = cmakedefine.groups()
                if name in defined:
                    line = f"#define {name}{rest}\n"
                else:
                    line = f"/* #undef {name} */\n"
            else:
                line = re.sub(r"\$\{(\w+)\}|@(\w+)@", substitute, line)
            out.append(line)
    with open(target, "w", encoding="utf-8") as handle:
        handle.writelines(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
