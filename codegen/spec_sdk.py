"""A spec's `sdk:` section: the vendor SDK's headers, glue, status convention,
stream accessor, argument converters and two-phase (workspace) calls."""
from __future__ import annotations

from typing import Optional

from .source import Mapping, Node, Scalar
from .spec_model import Converter, PassBy, SdkSpec, StatusConvention, TwoPhaseConvention
from .spec_reader import CONSTANT, FUNCTION, HEADER, QUERY, TYPE, Reader

_SDK_KEYS = ("headers", "glue", "status", "stream", "converters", "workspace_query", "two_phase")
_TWO_PHASE_KEYS = ("query", "executor")
_STATUS_KEYS = ("type", "ok", "message", "detail")
_CONVERTER_KEYS = ("fn", "pass")


def parse_sdk(reader: Reader, node: Mapping) -> SdkSpec:
    reader.check_keys(node, _SDK_KEYS, "sdk")
    headers = reader.code_list(node.get("headers"), "sdk.headers", HEADER)
    if not headers:
        reader.errors.add(node.location, "sdk.headers must list at least one header")
    glue = reader.code(node.get("glue"), "sdk.glue", node.location, HEADER) or ""
    stream = reader.code(node.get("stream"), "sdk.stream", node.location, FUNCTION) or ""
    status = _parse_status(reader, node)
    converters = _parse_converters(reader, node)
    workspace_query = reader.code(node.get("workspace_query"), "sdk.workspace_query", node.location, QUERY,
                                  required=False)
    two_phase = _parse_two_phase(reader, node)
    return SdkSpec(headers=headers, glue=glue, status=status, stream=stream, converters=converters,
                   location=node.location, workspace_query=workspace_query, two_phase=two_phase)


def _parse_status(reader: Reader, node: Mapping) -> StatusConvention:
    status_node = reader.mapping(node.get("status"), "sdk.status", node.location)
    if not status_node:
        return StatusConvention("", "", "")
    reader.check_keys(status_node, _STATUS_KEYS, "sdk.status")
    return StatusConvention(*(reader.code(status_node.get(k), f"sdk.status.{k}", status_node.location,
                                          grammar, required=k != "detail") or ""
                              for k, grammar in zip(_STATUS_KEYS, (TYPE, CONSTANT, FUNCTION, FUNCTION))))


def _parse_converters(reader: Reader, node: Mapping) -> dict[str, Converter]:
    converters: dict[str, Converter] = {}
    conv_node = reader.mapping(node.get("converters"), "sdk.converters", node.location)
    if not conv_node:
        return converters
    for aten_type in conv_node.keys():
        value = conv_node.get(aten_type)
        where = conv_node.key_location(aten_type)
        if isinstance(value, Scalar):
            fn = reader.code(value, f"sdk.converters.{aten_type}", where, FUNCTION)
            pass_by = PassBy.VALUE
        elif isinstance(value, Mapping):
            reader.check_keys(value, _CONVERTER_KEYS, f"converter '{aten_type}'")
            fn = reader.code(value.get("fn"), f"sdk.converters.{aten_type}.fn", where, FUNCTION)
            pass_by = reader.enum(value.get("pass"), PassBy, "pass", PassBy.VALUE)
        else:
            reader.errors.add(where, f"converter for '{aten_type}' must be a function name or {{fn, pass}}")
            continue
        if fn:
            converters[aten_type] = Converter(aten_type, fn, pass_by, where)
    return converters


def _parse_two_phase(reader: Reader, node: Mapping) -> Optional[TwoPhaseConvention]:
    two_phase_node: Optional[Node] = node.get("two_phase")
    if two_phase_node is None:
        return None
    two_phase_map = reader.mapping(two_phase_node, "sdk.two_phase", node.location)
    if not two_phase_map:
        return None
    reader.check_keys(two_phase_map, _TWO_PHASE_KEYS, "sdk.two_phase")
    query = reader.code(two_phase_map.get("query"), "sdk.two_phase.query", two_phase_map.location, QUERY) or ""
    executor = reader.code(two_phase_map.get("executor"), "sdk.two_phase.executor", two_phase_map.location,
                           TYPE) or ""
    return TwoPhaseConvention(query, executor, two_phase_map.location)
