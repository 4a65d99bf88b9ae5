"""An op's `call:` line, `sdkFunction(arg, convert(arg), compute(), stream)`:
parsed into a CallSpec whose names follow the C++ name grammar. Whether each
name is an argument or output of the overload is checked by the planner."""
from __future__ import annotations

import re
from typing import Optional

from . import cpp_text
from .source import Node
from .spec_model import CallArgument, CallSpec
from .spec_reader import Reader

_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_:]*)\s*\((.*)\)\s*$")
_ARGUMENT = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_:]*)\((\s*[A-Za-z_][A-Za-z0-9_]*\s*)?\)|([A-Za-z_][A-Za-z0-9_]*))$")


def parse_call(reader: Reader, node: Optional[Node]) -> Optional[CallSpec]:
    if node is None:
        return None
    text = reader.string(node, "call", node.location)
    if text is None:
        return None
    match = _CALL.match(text)
    if not match or not cpp_text.is_qualified_name(match.group(1)):
        reader.errors.add(node.location, f"malformed call '{text}'",
                          "expected `sdkFunction(arg, arg, ...)` naming ATen arguments, `stream` and outputs")
        return None
    texts = tuple(a.strip() for a in match.group(2).split(",")) if match.group(2).strip() else ()
    args = []
    for text in texts:
        arg = _ARGUMENT.match(text)
        if not arg or (arg.group(1) and not cpp_text.is_qualified_name(arg.group(1))):
            reader.errors.add(node.location, f"call argument '{text}' is not a name",
                              "call arguments are `name`, `converter(name)` or `function()`, where a name is an "
                              "ATen argument, an output or `stream`")
            continue
        if arg.group(3):
            args.append(CallArgument(arg.group(3), None))
        else:
            inner = (arg.group(2) or "").strip()
            args.append(CallArgument(inner or None, arg.group(1)))
    return CallSpec(match.group(1), tuple(args), node.location)
